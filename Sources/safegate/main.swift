// Release builds link the Swift runtime and Foundation statically (Package.swift): this import,
// compiled with -static-stdlib, brings the static Foundation's own libraries (its ICU among them)
// into the link.
import Foundation
import SafeGateCLI

await SafeGateMain.run()
