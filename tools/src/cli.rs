//! What the drivers share: clap parsing with exit status 1 for usage errors (0 for
//! `--help` and `--version`).

use std::process::ExitCode;

/// Parses the command line, or prints clap's message and gives the exit code.
#[allow(dead_code)]
pub fn parse<T: clap::Parser>() -> Result<T, ExitCode> {
    parse_with_matches().map(|(t, _)| t)
}

/// [`parse`], also giving clap's matches (for the order of options, `indices_of`).
pub fn parse_with_matches<T: clap::Parser>() -> Result<(T, clap::ArgMatches), ExitCode> {
    let exit = |e: clap::Error| {
        let code = if e.use_stderr() { 1 } else { 0 };
        let _ = e.print();
        ExitCode::from(code)
    };
    let m = T::command().try_get_matches().map_err(exit)?;
    let t = T::from_arg_matches(&m).map_err(exit)?;
    Ok((t, m))
}
