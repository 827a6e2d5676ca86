//! What the drivers share: clap parsing with exit status 1 for usage errors (0 for
//! `--help` and `--version`).

use std::process::ExitCode;

/// Parses the command line, or prints clap's message and gives the exit code.
pub fn parse<T: clap::Parser>() -> Result<T, ExitCode> {
    T::try_parse().map_err(|e| {
        let code = if e.use_stderr() { 1 } else { 0 };
        let _ = e.print();
        ExitCode::from(code)
    })
}
