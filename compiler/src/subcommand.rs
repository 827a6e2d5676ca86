//! The external tools a compile runs (ptxas, llvm-mc, ld.lld, clang for the host C and
//! the link), run in one place so that the driver can show them as clang does: `-v`
//! prints each command line before running it, `-###` prints them and runs none
//! (in-process stages still run, to know what the later commands would be, but nothing
//! is written).

use std::process::{Command, Output};
use std::sync::atomic::{AtomicU8, Ordering};

/// What happens to a subcommand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Run = 0,
    /// `-v`: print, then run.
    Show = 1,
    /// `-###`: print only.
    ShowOnly = 2,
}

static MODE: AtomicU8 = AtomicU8::new(Mode::Run as u8);

pub fn set_mode(m: Mode) {
    MODE.store(m as u8, Ordering::Relaxed);
}

pub fn mode() -> Mode {
    match MODE.load(Ordering::Relaxed) {
        1 => Mode::Show,
        2 => Mode::ShowOnly,
        _ => Mode::Run,
    }
}

/// Whether commands are only shown (`-###`): nothing may be written.
pub fn show_only() -> bool {
    mode() == Mode::ShowOnly
}

/// A command line as clang's `-###` prints it: every word in double quotes.
pub fn command_line(cmd: &Command) -> String {
    let quote = |s: &std::ffi::OsStr| {
        let s = s.to_string_lossy();
        format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
    };
    std::iter::once(quote(cmd.get_program()))
        .chain(cmd.get_args().map(quote))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Notes a stage that runs inside tesselc, in the list `-v` and `-###` print.
pub fn in_process(what: &str) {
    if mode() != Mode::Run {
        eprintln!(" (in process) {what}");
    }
}

/// Runs `cmd` (named `what` in errors) and returns its output, whatever its exit
/// status; under `-###` only prints it and returns an empty, successful output.
pub fn output(cmd: &mut Command, what: &str) -> Result<Output, String> {
    if mode() != Mode::Run {
        eprintln!(" {}", command_line(cmd));
    }
    if show_only() {
        use std::os::unix::process::ExitStatusExt;
        return Ok(Output {
            status: std::process::ExitStatus::from_raw(0),
            stdout: Vec::new(),
            stderr: Vec::new(),
        });
    }
    cmd.output().map_err(|e| format!("cannot run {what}: {e}"))
}

/// Reads a file a subcommand wrote; under `-###`, where none ran, an empty one.
pub fn read(path: &std::path::Path) -> std::io::Result<Vec<u8>> {
    if show_only() && !path.exists() {
        return Ok(Vec::new());
    }
    std::fs::read(path)
}

#[cfg(test)]
mod tests {
    #[test]
    fn quotes_like_clang() {
        let mut c = std::process::Command::new("ptxas");
        c.args(["-arch=sm_90", "a \"b\"\\c"]);
        assert_eq!(
            super::command_line(&c),
            r#""ptxas" "-arch=sm_90" "a \"b\"\\c""#
        );
    }
}
