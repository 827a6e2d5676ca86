//! What the drivers share: clap parsing with exit status 1 for usage errors (0 for
//! `--help` and `--version`).

use std::process::ExitCode;

/// Parses the command line, or prints clap's message and gives the exit code.
#[allow(dead_code)]
pub fn parse<T: clap::Parser>() -> Result<T, ExitCode> {
    parse_from(std::env::args_os())
}

/// [`parse`] of the given arguments (the program name first).
pub fn parse_from<
    T: clap::Parser,
    I: IntoIterator<Item = A>,
    A: Into<std::ffi::OsString> + Clone,
>(
    args: I,
) -> Result<T, ExitCode> {
    T::try_parse_from(args).map_err(|e| {
        let code = if e.use_stderr() { 1 } else { 0 };
        let _ = e.print();
        ExitCode::from(code)
    })
}
