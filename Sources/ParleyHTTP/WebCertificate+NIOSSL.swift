import NIOSSL

extension WebCertificate {
    /// swift-nio-ssl's server configuration for this certificate and its key.
    func serverConfiguration() throws -> TLSConfiguration {
        let certificate = try NIOSSLCertificate(bytes: Array(certificatePEM.utf8), format: .pem)
        let key = try NIOSSLPrivateKey(bytes: Array(privateKeyPEM.utf8), format: .pem)
        return TLSConfiguration.makeServerConfiguration(
            certificateChain: [.certificate(certificate)], privateKey: .privateKey(key))
    }
}
