import Foundation
import HTTPTypes
import Hummingbird

/// The pages of the login: small HTML answers built here, holding nothing a peer wrote. The page's
/// CSP (no inline script or style) holds for them too: they use the page's style sheet and scripts.
enum LoginPages {
    /// The name of the `<meta>` that hands the session's proof to the page (js/api.js), which keeps
    /// it in this origin's localStorage and replaces the address (and its history entry) with `/`.
    static let proofMetaName = "parley-session-proof"

    /// A code was spent: the page itself (`index`, the catalog's `/`), with the proof in its head.
    /// Not a page that then goes to `/`: that was one document, one script and one navigation more
    /// before the first screen.
    static func loggedIn(proof: String, index: String) -> String {
        let meta = #"<meta name="\#(proofMetaName)" content="\#(proof)">"#
        guard let head = index.range(of: "<head>") else { return index }
        return index.replacingCharacters(in: head, with: "<head>\n" + meta)
    }

    /// The code is used, expired or wrong: what to do, not a JSON error.
    static let refused = page(
        head: "",
        body: """
            <p>This login link does not work any more: each link works once, within a minute.</p>
            <p>On the machine running the node, run</p>
            <pre>parley web --data DATA</pre>
            <p>and open the new link it prints.</p>
            """)

    static func page(head: String, body: String, styled: Bool = true) -> String {
        """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>Parley</title>
        \(styled ? #"<link rel="stylesheet" href="/style.css">"# : "")
        \(head)
        </head>
        <body>
        <div class="login">
        <h1>Parley</h1>
        \(body)
        </div>
        </body>
        </html>

        """
    }

    static func html(_ text: String, status: HTTPResponse.Status, headers extra: HTTPFields = [:]) -> Response {
        var headers = extra
        headers[.contentType] = "text/html; charset=utf-8"
        // A login answer must never be served again from a cache, nor its proof kept there.
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}
