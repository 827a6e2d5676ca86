//! Writing an output file as clang does.
//!
//! - A regular file (or a path that does not exist yet) is written to a temporary file
//!   beside it and renamed into place, so a failure never leaves a partial file and a
//!   reader never sees one; the file is created with mode 0666 (0777 for a program)
//!   less the umask, like any file the compiler creates.
//! - A symbolic link is followed: the file it points to is replaced, the link stays.
//! - Anything else (a character device such as `/dev/null`, a pipe) is written through,
//!   never replaced.
//! - On a failed compile the old output is removed ([`remove_stale`]), so a build system
//!   cannot link a stale object.

use std::fs::{self, OpenOptions, Permissions};
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// The file a path names once symbolic links are followed (the path itself when it
/// does not exist; a dangling link names the file it would create).
fn resolve(path: &Path) -> PathBuf {
    let mut p = path.to_path_buf();
    for _ in 0..40 {
        match fs::read_link(&p) {
            Ok(target) => {
                p = match p.parent() {
                    Some(dir) if target.is_relative() => dir.join(target),
                    _ => target,
                }
            }
            Err(_) => break,
        }
    }
    p
}

/// Whether `path` exists and is not a regular file (a device, a pipe, a socket).
fn is_special(path: &Path) -> bool {
    fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir())
}

/// Writes `bytes` to `path` (see the module documentation); `executable` gives mode 0777
/// less the umask instead of 0666.
pub fn write(path: &Path, bytes: &[u8], executable: bool) -> Result<(), String> {
    let target = resolve(path);
    let fail = |e: std::io::Error| format!("cannot write '{}': {e}", path.display());
    if is_special(&target) {
        let mut f = OpenOptions::new().write(true).open(&target).map_err(fail)?;
        return f.write_all(bytes).map_err(fail);
    }
    let dir = target
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mode = if executable { 0o777 } else { 0o666 };
    let mut staged = tempfile::Builder::new()
        .prefix(".tessel")
        .permissions(Permissions::from_mode(mode))
        .tempfile_in(dir)
        .map_err(fail)?;
    staged.write_all(bytes).map_err(fail)?;
    staged
        .persist(&target)
        .map_err(|e| fail(e.error))
        .map(|_| ())
}

/// [`write`] with the contents of the file at `from`.
pub fn copy(from: &Path, path: &Path, executable: bool) -> Result<(), String> {
    let bytes = fs::read(from).map_err(|e| format!("cannot read '{}': {e}", from.display()))?;
    write(path, &bytes, executable)
}

/// Removes the output a failed compile would otherwise leave behind, when it is a
/// regular file (clang does the same; a device or a pipe is left alone).
pub fn remove_stale(path: &Path) {
    let target = resolve(path);
    if fs::metadata(&target).is_ok_and(|m| m.is_file()) {
        let _ = fs::remove_file(&target);
    }
}

/// A make-style dependency file (what clang's `-MD` writes): `targets: deps...`, file
/// names escaped for make, long lines continued with `\`, and with `phony` an empty rule
/// for every dependency but the first (`-MP`), so a deleted header does not break the
/// build.
pub fn depfile(targets: &[String], deps: &[String], phony: bool) -> String {
    let mut out = format!("{}:", targets.join(" "));
    for d in deps {
        out += &format!(" \\\n  {}", make_escape(d));
    }
    out.push('\n');
    if phony {
        for d in deps.iter().skip(1) {
            out += &format!("\n{}:\n", make_escape(d));
        }
    }
    out
}

/// A file name as make reads it in a rule: spaces and `#` escaped, `$` doubled (also
/// `-MQ`'s quoting of a target).
pub fn make_escape(s: &str) -> String {
    let mut o = String::new();
    for c in s.chars() {
        match c {
            ' ' | '#' => {
                o.push('\\');
                o.push(c);
            }
            '$' => o.push_str("$$"),
            c => o.push(c),
        }
    }
    o
}
