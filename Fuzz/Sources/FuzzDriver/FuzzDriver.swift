/// SwiftPM links executables with `main` aliased to `<Target>_main`, which `-parse-as-library` leaves undefined and
/// which would otherwise shadow libFuzzer's own `main`. Each target defines that symbol and calls `runFuzzer`,
/// handing control to libFuzzer's driver, which keeps the usual libFuzzer command line (corpus directories,
/// -max_total_time, -merge=1, ...).
public func runFuzzer(
    _ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
    _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt
) -> CInt {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments, callback)
}

/// libFuzzer's driver (LLVM >= 11): `int LLVMFuzzerRunDriver(int *, char ***, int (*)(const uint8_t *, size_t))`.
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt
) -> CInt
