/// SwiftPM links executables with `main` aliased to `FuzzIngest_main`, which `-parse-as-library` leaves undefined and
/// which would otherwise shadow libFuzzer's own `main`. Defining it here and handing control to libFuzzer's driver
/// keeps the usual libFuzzer command line (corpus directories, -max_total_time, ...).
@_cdecl("FuzzIngest_main")
func fuzzerEntry(
    _ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
) -> CInt {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments, LLVMFuzzerTestOneInputPointer)
}

/// libFuzzer's driver (LLVM >= 11): `int LLVMFuzzerRunDriver(int *, char ***, int (*)(const uint8_t *, size_t))`.
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt
) -> CInt
