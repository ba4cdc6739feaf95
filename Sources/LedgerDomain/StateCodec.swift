import Foundation

/// Deterministic JSON for projection states, so that a rebuilt table can be compared with the live one byte for
/// byte (`ledger replay --check`) and a state read back equals the state written.
public enum StateCodec {
    /// JSON text with sorted keys. Projection states hold only strings, integers, booleans and nested values of
    /// those, which always encode; should encoding ever fail the result is `{}`, which `decode` rejects.
    public static func encode<State: Encodable>(_ state: State) -> String {
        EventCodec.json(state)
    }

    /// Reads a state written by `encode`.
    public static func decode<State: Decodable>(_: State.Type, from text: String) throws -> State {
        try JSONDecoder().decode(State.self, from: Data(text.utf8))
    }
}
