import Foundation
import SwiftASN1

/// Decodes a receipt payload: `SET OF ReceiptAttribute`, where
/// `ReceiptAttribute ::= SEQUENCE { type INTEGER, version INTEGER, value OCTET STRING }` and the value holds DER
/// (UTF8String / IA5String / INTEGER; type 17 holds a nested attribute set for one in-app purchase).
///
/// Pure and total: every failure is a `malformed` error naming the attribute, which is what the fuzz target checks.
public enum ReceiptParser {
    public static func parse(payload: [UInt8]) throws(AppStoreVerificationError) -> AppReceipt {
        var receipt = AppReceipt()
        for attribute in try attributes(payload, path: "receipt") {
            let value = attribute.value
            switch attribute.type {
            case 0: receipt.receiptType = try string(value, "receipt type (0)")
            case 1: receipt.appItemId = try integer(value, "app item id (1)")
            case 2: receipt.bundleId = try string(value, "bundle id (2)")
            case 3: receipt.applicationVersion = try string(value, "app version (3)")
            case 4: receipt.opaqueValue = Data(value).base64EncodedString()
            case 5: receipt.sha1Hash = Data(value).base64EncodedString()
            case 12: (receipt.receiptCreationDate, receipt.receiptCreationDateMs) = try date(value, "creation date (12)")
            case 17: receipt.inAppPurchases.append(try inAppPurchase(value, index: receipt.inAppPurchases.count))
            case 18: (receipt.originalPurchaseDate, receipt.originalPurchaseDateMs) = try date(value, "original purchase date (18)")
            case 19: receipt.originalApplicationVersion = try string(value, "original app version (19)")
            case 21: (receipt.expirationDate, receipt.expirationDateMs) = try date(value, "expiration date (21)")
            default: receipt.unknownAttributes.append(attribute.kept)
            }
        }
        return receipt
    }

    private static func inAppPurchase(_ payload: [UInt8], index: Int) throws(AppStoreVerificationError) -> InAppPurchaseReceipt {
        var purchase = InAppPurchaseReceipt()
        let path = "in-app purchase #\(index)"
        for attribute in try attributes(payload, path: path) {
            let value = attribute.value
            let name = "\(path) attribute \(attribute.type)"
            switch attribute.type {
            case 1701: purchase.quantity = try integer(value, name)
            case 1702: purchase.productId = try string(value, name)
            case 1703: purchase.transactionId = try string(value, name)
            case 1704: (purchase.purchaseDate, purchase.purchaseDateMs) = try date(value, name)
            case 1705: purchase.originalTransactionId = try string(value, name)
            case 1706: (purchase.originalPurchaseDate, purchase.originalPurchaseDateMs) = try date(value, name)
            case 1708: (purchase.expiresDate, purchase.expiresDateMs) = try date(value, name)
            case 1711: purchase.webOrderLineItemId = try integer(value, name)
            case 1712: (purchase.cancellationDate, purchase.cancellationDateMs) = try date(value, name)
            case 1719: purchase.isInIntroOfferPeriod = try integer(value, name) != 0
            default: purchase.unknownAttributes.append(attribute.kept)
            }
        }
        return purchase
    }

    private struct Attribute {
        let type: Int64
        let version: Int64
        let value: [UInt8]
        var kept: ReceiptAttribute {
            ReceiptAttribute(type: type, version: version, value: Data(value).base64EncodedString())
        }
    }

    private static func attributes(_ bytes: [UInt8], path: String) throws(AppStoreVerificationError) -> [Attribute] {
        guard !bytes.isEmpty else { throw .malformed("the \(path) payload is empty") }
        do {
            var node = try BER.parse(bytes)
            if node.identifier == .octetString {
                // Some Xcode receipts wrap the attribute set in one more OCTET STRING.
                node = try BER.parse(try PKCS7SignedData.octetString(node))
            }
            guard node.identifier == .set, case .constructed(let elements) = node.content else {
                throw AppStoreVerificationError.malformed("the \(path) payload is not a SET of attributes")
            }
            var result: [Attribute] = []
            for element in elements {
                guard element.identifier == .sequence, case .constructed(let fields) = element.content else {
                    throw AppStoreVerificationError.malformed("a \(path) attribute is not a SEQUENCE")
                }
                let parts = Array(fields)
                guard parts.count == 3, let type = try? Int64(berEncoded: parts[0]), type >= 0,
                    let version = try? Int64(berEncoded: parts[1]),
                    parts[2].identifier == .octetString
                else { throw AppStoreVerificationError.malformed("a \(path) attribute is not (INTEGER, INTEGER, OCTET STRING)") }
                result.append(Attribute(type: type, version: version, value: try PKCS7SignedData.octetString(parts[2])))
            }
            return result
        } catch let error as AppStoreVerificationError {
            throw error
        } catch {
            throw .malformed("the \(path) payload is not valid ASN.1 (\(error))")
        }
    }

    private static func string(_ value: [UInt8], _ name: String) throws(AppStoreVerificationError) -> String {
        guard let node = try? BER.parse(value), case .primitive(let bytes) = node.content,
            [ASN1Identifier.utf8String, .ia5String, .printableString].contains(node.identifier),
            let text = String(validating: bytes, as: UTF8.self)
        else { throw .malformed("the receipt's \(name) is not an ASN.1 string") }
        return text
    }

    private static func integer(_ value: [UInt8], _ name: String) throws(AppStoreVerificationError) -> Int64 {
        guard let node = try? BER.parse(value), let integer = try? Int64(berEncoded: node) else {
            throw .malformed("the receipt's \(name) is not an ASN.1 INTEGER that fits 64 bits")
        }
        return integer
    }

    private static func date(_ value: [UInt8], _ name: String) throws(AppStoreVerificationError) -> (String?, Int64?) {
        let text = try string(value, name)
        guard !text.isEmpty else { return (nil, nil) }
        guard let milliseconds = RFC3339.milliseconds(text) else {
            throw .malformed("the receipt's \(name) \"\(text)\" is not an RFC 3339 date")
        }
        return (text, milliseconds)
    }
}
