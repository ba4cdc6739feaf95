/// An id inside one app (a user's pseudonym, a purchase's original transaction id): ids are unique only within their
/// app, so whatever follows several apps' changes keys by both.
package struct AppScopedID: Hashable, Sendable {
    package var app: String
    package var id: String

    package init(app: String, id: String) {
        self.app = app
        self.id = id
    }
}
