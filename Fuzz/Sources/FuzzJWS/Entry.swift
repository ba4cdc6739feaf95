import FuzzDriver

/// The executable's entry point (see FuzzDriver): libFuzzer's driver, calling this target's test function.
@_cdecl("FuzzJWS_main")
func fuzzerEntry(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, LLVMFuzzerTestOneInputPointer)
}
