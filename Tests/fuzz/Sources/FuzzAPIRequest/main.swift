import FuzzSupport
import ParleyAPI

// The control-socket request parser: a line either becomes a request that survives a JSON round
// trip, or a one-line JSON failure response. Never a crash.
Fuzzer.main(seeds: seeds) { bytes in
    switch APIService.parse(String(decoding: bytes, as: UTF8.self)) {
    case let .success(request):
        guard let line = try? APIJSON.encode(request), (try? APIJSON.decode(APIRequest.self, from: line)) == request
        else {
            Fuzzer.fail("a parsed request does not survive a round trip")
        }
    case let .failure(failure):
        guard !failure.line.contains("\n"),
            let response = try? APIJSON.decode(APIResponse<String>.self, from: failure.line),
            !response.ok
        else { Fuzzer.fail("a refusal is not a one-line JSON failure") }
    }
}

/// One line of each request shape (docs/PROTOCOL.md §14).
func seeds() -> [[UInt8]] {
    [
        #"{"status":{}}"#, #"{"contactsAdd":{"peer":"00ff","name":"bob","address":"10.0.0.2:7001"}}"#,
        #"{"contactsList":{}}"#,
        #"{"chatCreate":{"title":"Lunch","members":["bob","carol"]}}"#, #"{"chatList":{}}"#,
        #"{"send":{"chat":"c38e","text":"hi \u00e9","tag":null,"refs":["ab:Text"]}}"#,
        #"{"messages":{"chat":"Lunch","tag":"Poll","ref":null,"refTag":null,"limit":20}}"#,
        #"{"pollCreate":{"chat":"Lunch","question":"Pizza?"}}"#,
        #"{"pollVote":{"chat":"Lunch","poll":"b8cc","choices":["up"]}}"#,
        #"{"pollResults":{"chat":"Lunch","poll":"b8cc"}}"#, #"{"localGet":{"message":"9488","key":"read"}}"#,
        #"{"localSet":{"message":"9488","key":"read","value":"1"}}"#, #"{"watch":{"chat":"Lunch"}}"#,
        #"{"localList":{"message":"9488"}}"#, #"{"localDelete":{"message":"9488","key":"read"}}"#,
        #"{"messages":{"chat":"Lunch","limit":20,"before":41,"after":3,"shown":true}}"#,
        #"{"read":{"chat":"Lunch","upTo":7}}"#,
        #"{"receipts":{"chat":"Lunch","message":"9488"}}"#,
        #"{"send":{"chat":"c38e","text":"{\"k\":1}","tag":"Custom","refs":[]}}"#,
    ].map { Array($0.utf8) }
}
