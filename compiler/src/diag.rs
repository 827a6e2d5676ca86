//! Located diagnostics in clang's format: `file:line:col: error: message`, the source
//! line, and a caret under the column.

use crate::scop::Loc;
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};

/// Whether diagnostics are printed in colour (clang's scheme), as the driver decides:
/// on a terminal, or forced by `-f[no-]color-diagnostics`.
static COLOR: AtomicBool = AtomicBool::new(false);

pub fn set_color(on: bool) {
    COLOR.store(on, Ordering::Relaxed);
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub loc: Loc,
    pub message: String,
    /// The source line the caret points into, when known.
    pub source_line: Option<String>,
    pub warning: bool,
    /// A fatal error (clang's "too many errors emitted"): printed as such and not
    /// counted among the errors.
    pub fatal: bool,
}

impl Diagnostic {
    /// A warning (clang's, with its `[-Wflag]` in the message).
    pub fn warning(loc: Loc, message: impl Into<String>) -> Self {
        Diagnostic {
            warning: true,
            ..Diagnostic::new(loc, message)
        }
    }

    /// A fatal error: nothing after it was looked at.
    pub fn fatal(loc: Loc, message: impl Into<String>) -> Self {
        Diagnostic {
            fatal: true,
            ..Diagnostic::new(loc, message)
        }
    }

    /// An error.
    pub fn new(loc: Loc, message: impl Into<String>) -> Self {
        let source_line = std::fs::read_to_string(&loc.file).ok().and_then(|s| {
            s.lines()
                .nth(loc.line.saturating_sub(1) as usize)
                .map(str::to_string)
        });
        Diagnostic {
            loc,
            message: message.into(),
            source_line,
            warning: false,
            fatal: false,
        }
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match (self.warning, self.fatal) {
            (true, _) => "warning",
            (_, true) => "fatal error",
            _ => "error",
        };
        let color = COLOR.load(Ordering::Relaxed);
        if color {
            let hue = if self.warning { 35 } else { 31 };
            write!(
                f,
                "\x1b[1m{}: \x1b[{hue}m{kind}: \x1b[0m\x1b[1m{}\x1b[0m",
                self.loc, self.message
            )?;
        } else {
            write!(f, "{}: {kind}: {}", self.loc, self.message)?;
        }
        if let Some(line) = &self.source_line {
            let col = self.loc.col.saturating_sub(1) as usize;
            let pad: String = line
                .chars()
                .take(col)
                .map(|c| if c == '\t' { '\t' } else { ' ' })
                .collect();
            let caret = if color { "\x1b[1;32m^\x1b[0m" } else { "^" };
            write!(f, "\n{line}\n{pad}{caret}")?;
        }
        Ok(())
    }
}
