import ExactJSON
import AppStoreVerification

/// Feeds arbitrary bytes to the JWS path: the compact splitter, base64url, the JSON parser and the payload models.
/// Any trap, leak or overflow is a bug; thrown errors are not.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJWS(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let text = String(decoding: bytes, as: UTF8.self)
    if let (_, payload) = try? UnverifiedInspection.jws(text) {
        _ = try? TransactionPayload(json: payload)
        _ = try? RenewalInfoPayload(json: payload)
        _ = try? NotificationPayload(json: payload)
        _ = try? AppTransactionPayload(json: payload)
    }
    if let json = try? JSONParser.parse(bytes) {
        _ = JSONWriter.string(json)
        _ = try? NotificationPayload(json: json)
        _ = try? TransactionPayload(json: json)
    }
    return 0
}
let LLVMFuzzerTestOneInputPointer: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt = { fuzzJWS($0, $1) }
