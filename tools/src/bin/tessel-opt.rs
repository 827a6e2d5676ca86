//! tessel-opt: an mlir-opt for Tessel. Reads MLIR, runs passes (Tessel's and every
//! upstream MLIR pass), prints the result.

use std::io::{Read, Write};
use std::process::ExitCode;
use tessel::mlir::{module_bytecode, print_module_with, MlirDiag, Session, Severity};
use tessel::registry;

struct Opts {
    input: String,
    output: String,
    split: bool,
    verify_diags: bool,
    print_after_all: bool,
    print_after: Vec<String>,
    print_before_all: bool,
    print: tessel::mlir::PrintOptions,
    timing: bool,
    dump_pipeline: bool,
    bytecode: bool,
    allow_unregistered: bool,
    /// Pipeline elements (each anchored at builtin.module), with the pass name for printing.
    elements: Vec<(String, String)>,
    /// For the last pass of a Tessel named pipeline (which runs pass by pass), the
    /// pipeline's name, so that `--mlir-print-ir-after=NAME` prints after all of it.
    ends: Vec<Option<String>>,
}

fn all_pass_names() -> Vec<String> {
    let mut v: Vec<String> = registry::PASSES
        .iter()
        .map(|p| p.name.to_string())
        .collect();
    v.extend(registry::upstream().iter().map(|p| p.0.to_string()));
    v.sort();
    v.dedup();
    v
}

fn is_known_pass(name: &str) -> bool {
    registry::find(name).is_some() || registry::upstream().iter().any(|p| p.0 == name)
}

/// Edit distance between two pass names (insertions, deletions, substitutions).
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + (ca != *cb) as usize).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

/// One line: the unknown name and the closest known ones.
fn unknown_pass(name: &str) -> String {
    let names = all_pass_names();
    let mut near: Vec<(usize, &String)> = names
        .iter()
        .map(|n| (edit_distance(name, n), n))
        .filter(|(d, n)| *d <= (name.len() / 3).max(2) || n.contains(name))
        .collect();
    near.sort();
    let mut msg = format!("error: unknown pass or option '{name}'");
    if !near.is_empty() {
        let shown: Vec<String> = near.iter().take(3).map(|(_, n)| format!("'{n}'")).collect();
        msg += &format!("; did you mean {}?", shown.join(", "));
    }
    msg + " (--list-passes lists them all)"
}

/// A parsed pipeline element: `name{opts}(children)`.
#[derive(Debug)]
struct PElem {
    name: String,
    opts: Option<String>,
    children: Vec<PElem>,
}

fn parse_elems(s: &str, i: &mut usize) -> Result<Vec<PElem>, String> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    loop {
        while *i < b.len() && (b[*i] == b' ' || b[*i] == b',' || b[*i] == b'\n') {
            *i += 1;
        }
        if *i >= b.len() || b[*i] == b')' {
            return Ok(out);
        }
        let start = *i;
        while *i < b.len() && !matches!(b[*i], b'{' | b'(' | b',' | b')' | b' ') {
            *i += 1;
        }
        let name = s[start..*i].to_string();
        if name.is_empty() {
            return Err(format!("unexpected '{}' in pass pipeline", &s[*i..*i + 1]));
        }
        let mut opts = None;
        if *i < b.len() && b[*i] == b'{' {
            let mut depth = 0;
            let st = *i + 1;
            while *i < b.len() {
                match b[*i] {
                    b'{' => depth += 1,
                    b'}' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
                *i += 1;
            }
            if *i >= b.len() {
                return Err("unbalanced '{' in pass pipeline".into());
            }
            opts = Some(s[st..*i].to_string());
            *i += 1;
        }
        let mut children = Vec::new();
        if *i < b.len() && b[*i] == b'(' {
            *i += 1;
            children = parse_elems(s, i)?;
            if *i >= b.len() || b[*i] != b')' {
                return Err("unbalanced '(' in pass pipeline".into());
            }
            *i += 1;
        }
        out.push(PElem {
            name,
            opts,
            children,
        });
    }
}

/// Flattens nested elements into module-anchored single-pass pipelines.
fn flatten(
    elems: &[PElem],
    wrap: &dyn Fn(String) -> String,
    out: &mut Vec<(String, String)>,
) -> Result<(), String> {
    for e in elems {
        let is_anchor = !e.children.is_empty()
            || matches!(
                e.name.as_str(),
                "builtin.module" | "func.func" | "gpu.module" | "any"
            );
        if is_anchor && e.opts.is_none() {
            let name = e.name.clone();
            if name == "builtin.module" {
                flatten(&e.children, wrap, out)?;
            } else {
                flatten(&e.children, &|inner| wrap(format!("{name}({inner})")), out)?;
            }
            continue;
        }
        if !is_known_pass(&e.name) {
            return Err(unknown_pass(&e.name));
        }
        let text = match &e.opts {
            Some(o) => format!("{}{{{o}}}", e.name),
            None => e.name.clone(),
        };
        let text = registry::expand_pipeline(&text).map_err(|m| format!("error: {m}"))?;
        out.push((wrap(text), e.name.clone()));
    }
    Ok(())
}

/// The command line: mlir-opt's options, and one hidden `--NAME[=OPTIONS]` flag per
/// pass and pipeline (Tessel's and upstream), whose order on the command line is the
/// order they run in.
fn command(passes: &[String]) -> clap::Command {
    use clap::{Arg, ArgAction};
    let flag = |name: &'static str, help: &'static str| {
        Arg::new(name)
            .long(name)
            .action(ArgAction::SetTrue)
            .help(help)
    };
    let mut tessel = String::from("Tessel passes (--list-passes shows every upstream pass too):\n");
    for p in registry::PASSES {
        let opts: Vec<String> = p
            .options
            .iter()
            .map(|o| format!("{}={}", o.name, o.default))
            .collect();
        tessel += &format!(
            "  --{}{{{}}}\n      {}\n",
            p.name,
            opts.join(" "),
            p.summary
        );
    }
    let mut cmd = clap::Command::new("tessel-opt")
        .version(concat!(env!("CARGO_PKG_VERSION"), " (MLIR 22)"))
        .about("Tessel modular optimizer driver: reads MLIR, runs passes (Tessel's and every upstream MLIR pass), prints the result")
        .override_usage("tessel-opt [options] [input file, or - for standard input]")
        .after_help(tessel)
        .arg(Arg::new("input").value_name("FILE").default_value("-"))
        .arg(
            Arg::new("output")
                .short('o')
                .value_name("FILE")
                .default_value("-")
                .help("Output file (default: standard output)"),
        )
        .arg(
            Arg::new("pass-pipeline")
                .long("pass-pipeline")
                .value_name("PIPELINE")
                .action(ArgAction::Append)
                .help("A textual pass pipeline, e.g. 'builtin.module(func.func(cse))'; --<pass>[=<options>] adds one pass (options as 'k=v k2=v2')"),
        )
        .arg(flag("split-input-file", "Split the input at '// -----' lines and process each part alone"))
        .arg(flag("verify-diagnostics", "Check that the diagnostics match the expected-error/-warning/-note/-remark annotations"))
        .arg(flag("mlir-print-ir-after-all", "Print the IR after every pass (to standard error)"))
        .arg(
            Arg::new("mlir-print-ir-after")
                .long("mlir-print-ir-after")
                .value_name("PASS")
                .action(ArgAction::Append)
                .help("Print the IR after each run of PASS"),
        )
        .arg(flag("mlir-print-ir-before-all", "Print the IR before every pass (to standard error)"))
        .arg(flag("mlir-print-op-generic", "Print operations in the generic form"))
        .arg(flag("mlir-print-debuginfo", "Print the source locations (loc(...)) of operations"))
        .arg(flag("mlir-timing", "Report the time each pass took (to standard error)"))
        .arg(flag("dump-pass-pipeline", "Print the pass pipeline that will run (to standard error)"))
        .arg(flag("emit-bytecode", "Write MLIR bytecode instead of text"))
        .arg(flag("allow-unregistered-dialect", "Accept operations of unknown dialects"))
        .arg(flag("list-passes", "List every pass and pipeline with a summary"));
    for name in passes {
        cmd = cmd.arg(
            Arg::new(format!("pass:{name}"))
                .long(name.clone())
                .num_args(0..=1)
                .require_equals(true)
                .default_missing_value("")
                .action(ArgAction::Append)
                .hide(true),
        );
    }
    cmd
}

/// Every pass and pipeline with its options and an example (`--list-passes`).
fn list_passes() -> String {
    let mut s = String::from("Tessel passes and pipelines:\n");
    for p in registry::PASSES {
        s += &format!("  --{:<40} {}\n", p.name, p.summary);
        for opt in p.options {
            s += &format!(
                "      {}={:<28} {}\n",
                opt.name,
                format!("<{}>", opt.default),
                opt.help
            );
        }
        s += &format!("      example: {}\n", p.example);
    }
    s += "Upstream MLIR passes and pipelines:\n";
    for (n, sum) in registry::upstream() {
        s += &format!("  --{n:<40} {sum}\n");
    }
    s
}

/// One pass named on the command line, anchored on the first op kind it accepts.
fn anchored_pass(session: &Session, name: &str, value: &str) -> Result<String, String> {
    let text = match value.trim_matches('"') {
        "" => name.to_string(),
        v => format!("{name}{{{v}}}"),
    };
    let text = registry::expand_pipeline(&text).map_err(|e| format!("error: {e}"))?;
    let mut first_err = String::new();
    for wrap in [
        "{}",
        "func.func({})",
        "gpu.module({})",
        "gpu.module(gpu.func({}))",
    ] {
        let t = wrap.replace("{}", &text);
        match session.check_pipeline(&format!("builtin.module({t})")) {
            Ok(()) => return Ok(t),
            Err(e) if first_err.is_empty() => first_err = e,
            Err(_) => {}
        }
    }
    Err(format!("error: invalid pass '{name}': {first_err}"))
}

/// Reads the command line with clap; `Err` carries the text to print and the exit code
/// (0 for `--help`, `--version` and `--list-passes`).
fn parse_args(session: &Session) -> Result<Opts, (String, u8)> {
    let passes = all_pass_names();
    let m = match command(&passes).try_get_matches() {
        Ok(m) => m,
        Err(e) => {
            use clap::error::{ContextKind, ContextValue, ErrorKind};
            if e.kind() == ErrorKind::UnknownArgument {
                if let Some(ContextValue::String(a)) = e.get(ContextKind::InvalidArg) {
                    let a = a.split('=').next().unwrap_or(a);
                    return Err(match a.strip_prefix("--") {
                        Some(name) => (unknown_pass(name), 1),
                        None if a.starts_with('-') => (
                            format!("error: unknown option '{a}' (--help lists them)"),
                            1,
                        ),
                        None => (format!("error: more than one input file ('{a}')"), 1),
                    });
                }
            }
            let code = if e.use_stderr() { 1 } else { 0 };
            return Err((e.render().to_string(), code));
        }
    };
    if m.get_flag("list-passes") {
        return Err((list_passes(), 0));
    }
    let set = |k: &str| m.get_flag(k);
    let mut o = Opts {
        input: m.get_one::<String>("input").cloned().unwrap_or("-".into()),
        output: m.get_one::<String>("output").cloned().unwrap_or("-".into()),
        split: set("split-input-file"),
        verify_diags: set("verify-diagnostics"),
        print_after_all: set("mlir-print-ir-after-all"),
        print_after: m
            .get_many::<String>("mlir-print-ir-after")
            .map(|v| v.cloned().collect())
            .unwrap_or_default(),
        print_before_all: set("mlir-print-ir-before-all"),
        print: tessel::mlir::PrintOptions {
            generic: set("mlir-print-op-generic"),
            debug_info: set("mlir-print-debuginfo"),
            local_scope: false,
        },
        timing: set("mlir-timing"),
        dump_pipeline: set("dump-pass-pipeline"),
        bytecode: set("emit-bytecode"),
        allow_unregistered: set("allow-unregistered-dialect"),
        elements: Vec::new(),
        ends: Vec::new(),
    };
    // Passes and pipelines in command-line order.
    let mut given: Vec<(usize, Option<&str>, &String)> = Vec::new();
    let ids = std::iter::once(("pass-pipeline".to_string(), None)).chain(
        passes
            .iter()
            .map(|n| (format!("pass:{n}"), Some(n.as_str()))),
    );
    for (id, pass) in ids {
        if let (Some(i), Some(v)) = (m.indices_of(&id), m.get_many::<String>(&id)) {
            given.extend(i.zip(v).map(|(i, v)| (i, pass, v)));
        }
    }
    given.sort_by_key(|g| g.0);
    for (_, pass, value) in given {
        match pass {
            Some(name) => {
                let t = anchored_pass(session, name, value).map_err(|e| (e, 1))?;
                o.elements.push((t, name.to_string()));
            }
            None => {
                let mut i = 0;
                let elems = parse_elems(value, &mut i).map_err(|e| (format!("error: {e}"), 1))?;
                if i != value.len() {
                    return Err((
                        format!("error: unexpected ')' at offset {i} in pass pipeline"),
                        1,
                    ));
                }
                flatten(&elems, &|s| s, &mut o.elements).map_err(|e| (e, 1))?;
            }
        }
    }
    split_named_pipelines(&mut o).map_err(|e| (e, 1))?;
    Ok(o)
}

/// Runs each Tessel named pipeline (`tessel-gpu-to-nvvm`) pass by pass, so that
/// `--mlir-print-ir-after-all`, `--mlir-print-ir-before-all` and `--mlir-timing` show
/// every pass inside it, as mlir-opt shows the passes of its pipelines.
fn split_named_pipelines(o: &mut Opts) -> Result<(), String> {
    let mut elements = Vec::new();
    let mut ends = Vec::new();
    for (text, pass) in std::mem::take(&mut o.elements) {
        let named = matches!(
            registry::find(&pass).map(|i| i.kind),
            Some(registry::PassKind::Pipeline(_))
        );
        if !named {
            elements.push((text, pass));
            ends.push(None);
            continue;
        }
        let mut i = 0;
        let elems = parse_elems(&text, &mut i).map_err(|e| format!("error: {e}"))?;
        let before = elements.len();
        flatten(&elems, &|s| s, &mut elements)?;
        ends.resize(elements.len(), None);
        if elements.len() > before {
            ends[elements.len() - 1] = Some(pass);
        }
    }
    o.elements = elements;
    o.ends = ends;
    Ok(())
}

#[derive(Debug)]
struct Expected {
    severity: Severity,
    line: u32,
    text: String,
    seen: bool,
}

/// Reads `// expected-error @+1 {{text}}` annotations.
fn expectations(chunk: &str) -> Result<Vec<Expected>, String> {
    let mut v = Vec::new();
    for (n, line) in chunk.lines().enumerate() {
        let mut rest = line;
        while let Some(p) = rest.find("expected-") {
            let after = &rest[p + 9..];
            let (sev, tail) = if let Some(t) = after.strip_prefix("error") {
                (Severity::Error, t)
            } else if let Some(t) = after.strip_prefix("warning") {
                (Severity::Warning, t)
            } else if let Some(t) = after.strip_prefix("note") {
                (Severity::Note, t)
            } else if let Some(t) = after.strip_prefix("remark") {
                (Severity::Remark, t)
            } else {
                rest = after;
                continue;
            };
            let tail = tail.trim_start();
            let mut target = n as i64 + 1;
            let tail = if let Some(t) = tail.strip_prefix('@') {
                let off: String = t
                    .chars()
                    .take_while(|c| !c.is_whitespace() && *c != '{')
                    .collect();
                target = match off.as_str() {
                    "above" => target - 1,
                    "below" => target + 1,
                    o => {
                        target
                            + o.parse::<i64>()
                                .map_err(|_| format!("line {}: bad offset '@{o}'", n + 1))?
                    }
                };
                t[off.len()..].trim_start()
            } else {
                tail
            };
            let Some(body) = tail.strip_prefix("{{") else {
                return Err(format!(
                    "line {}: expected '{{{{' after the expected-* keyword",
                    n + 1
                ));
            };
            let Some(end) = body.find("}}") else {
                return Err(format!("line {}: missing '}}}}'", n + 1));
            };
            v.push(Expected {
                severity: sev,
                line: target as u32,
                text: body[..end].to_string(),
                seen: false,
            });
            rest = &body[end + 2..];
        }
    }
    Ok(v)
}

struct ChunkResult {
    output: Option<Vec<u8>>,
    diags: Vec<MlirDiag>,
    /// How long each pass took (`--mlir-timing`).
    times: Vec<(String, std::time::Duration)>,
}

fn process(
    session: &Session,
    o: &Opts,
    chunk: &str,
    name: &str,
    log: &mut dyn Write,
) -> ChunkResult {
    let failed = |diags, times| ChunkResult {
        output: None,
        diags,
        times,
    };
    let mut module = match session.parse(chunk, name) {
        Ok(m) => m,
        Err(d) => return failed(d, Vec::new()),
    };
    if let Err(d) = session.verify(&module) {
        return failed(d, Vec::new());
    }
    let mut times = Vec::new();
    // Each element runs as its own pipeline, which starts with no diagnostics: the
    // remarks and warnings of the passes before are kept here.
    let mut earlier = Vec::new();
    for ((text, pass), ends) in o.elements.iter().zip(&o.ends) {
        let _span = tracing::info_span!("pass", name = %pass).entered();
        if o.print_before_all {
            let _ = write!(
                log,
                "// -----// IR Dump Before {pass} //----- //\n{}\n",
                print_module_with(&module, o.print)
            );
        }
        let started = std::time::Instant::now();
        let r = session.run_pipeline(&mut module, text);
        times.push((pass.clone(), started.elapsed()));
        match r {
            Err(d) => {
                earlier.extend(d);
                return failed(earlier, times);
            }
            Ok(()) => earlier.extend(session.take_diags()),
        }
        // After a whole named pipeline, when that is what was asked, it names the dump.
        let label = match ends {
            Some(e) if !o.print_after_all && o.print_after.contains(e) => e,
            _ => pass,
        };
        if o.print_after_all
            || o.print_after
                .iter()
                .any(|p| p == pass || Some(p) == ends.as_ref())
        {
            let _ = write!(
                log,
                "// -----// IR Dump After {label} //----- //\n{}\n",
                print_module_with(&module, o.print)
            );
        }
    }
    let output = if o.bytecode {
        module_bytecode(&module)
    } else {
        print_module_with(&module, o.print).into_bytes()
    };
    earlier.extend(session.take_diags());
    ChunkResult {
        output: Some(output),
        diags: earlier,
        times,
    }
}

/// `--mlir-timing`: the wall time of each pass, summed over the input's parts, in the
/// style of mlir-opt's report.
fn timing_report(times: &[(String, std::time::Duration)]) {
    let mut per_pass: Vec<(String, f64)> = Vec::new();
    for (p, t) in times {
        match per_pass.iter_mut().find(|(n, _)| n == p) {
            Some(e) => e.1 += t.as_secs_f64(),
            None => per_pass.push((p.clone(), t.as_secs_f64())),
        }
    }
    let total: f64 = per_pass.iter().map(|(_, t)| t).sum();
    eprintln!("===-------------------------------------------------------------------------===");
    eprintln!("                         ... Execution time report ...");
    eprintln!("===-------------------------------------------------------------------------===");
    eprintln!("  Total Execution Time: {total:.4} seconds\n");
    eprintln!("  ----Wall Time----  ----Name----");
    for (p, t) in &per_pass {
        let pct = if total > 0.0 { 100.0 * t / total } else { 0.0 };
        eprintln!("  {t:.4} ({pct:5.1}%)  {p}");
    }
    eprintln!("  {total:.4} (100.0%)  Total");
}

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("TESSEL_LOG")
                .unwrap_or_else(|_| "warn".into()),
        )
        .without_time()
        .init();
    let session = Session::new();
    let o = match parse_args(&session) {
        Ok(o) => o,
        Err((msg, code)) => {
            if code == 0 {
                print!("{msg}");
            } else {
                eprintln!("{msg}");
            }
            return ExitCode::from(code);
        }
    };
    session
        .ctx
        .set_allow_unregistered_dialects(o.allow_unregistered);
    if o.bytecode && o.split {
        eprintln!("error: --emit-bytecode writes one module; it cannot follow --split-input-file");
        return ExitCode::from(1);
    }
    if o.dump_pipeline {
        let texts: Vec<&str> = o.elements.iter().map(|(t, _)| t.as_str()).collect();
        eprintln!("Pass Manager with {} passes:", texts.len());
        eprintln!("{}", texts.join(",\n"));
    }
    let (text, name) = if o.input == "-" {
        let mut s = String::new();
        if let Err(e) = std::io::stdin().read_to_string(&mut s) {
            eprintln!("error: cannot read standard input: {e}");
            return ExitCode::from(1);
        }
        (s, "<stdin>".to_string())
    } else {
        match std::fs::read_to_string(&o.input) {
            Ok(s) => (s, o.input.clone()),
            Err(e) => {
                eprintln!("error: cannot open input file '{}': {e}", o.input);
                return ExitCode::from(1);
            }
        }
    };
    // Split at lines that are exactly `// -----`, keeping line numbers of each part.
    let mut chunks: Vec<(String, u32)> = Vec::new();
    if o.split {
        let mut cur = String::new();
        let mut start = 0u32;
        for (n, line) in text.lines().enumerate() {
            if line.trim() == "// -----" {
                chunks.push((std::mem::take(&mut cur), start));
                start = n as u32 + 1;
            } else {
                cur += line;
                cur.push('\n');
            }
        }
        chunks.push((cur, start));
    } else {
        chunks.push((text, 0));
    }
    let mut outputs = Vec::new();
    let mut times = Vec::new();
    let mut failed = false;
    let mut stderr = std::io::stderr();
    for (chunk, offset) in &chunks {
        let r = process(&session, &o, chunk, &name, &mut stderr);
        if o.verify_diags {
            let mut exp = match expectations(chunk) {
                Ok(e) => e,
                Err(e) => {
                    eprintln!("{name}:{e}");
                    failed = true;
                    continue;
                }
            };
            // mlir-opt does not print the operation on diagnostics it verifies.
            for d in r
                .diags
                .iter()
                .filter(|d| !d.message.starts_with("see current operation"))
            {
                match exp.iter_mut().find(|e| {
                    !e.seen
                        && e.severity == d.severity
                        && e.line == d.line
                        && d.message.contains(&e.text)
                }) {
                    Some(e) => e.seen = true,
                    None => {
                        failed = true;
                        eprintln!(
                            "{name}:{}:{}: error: unexpected {}: {}",
                            d.line + offset,
                            d.col,
                            d.severity.as_str(),
                            d.message
                        );
                    }
                }
            }
            for e in exp.iter().filter(|e| !e.seen) {
                failed = true;
                eprintln!(
                    "{name}:{}: error: expected {} \"{}\" was not produced",
                    e.line + offset,
                    e.severity.as_str(),
                    e.text
                );
            }
        } else {
            for d in &r.diags {
                eprintln!(
                    "{name}:{}:{}: {}: {}",
                    d.line + offset,
                    d.col,
                    d.severity.as_str(),
                    d.message
                );
                // The source line and a caret under the column, as clang and mlir-opt show.
                if let Some(line) = chunk.lines().nth((d.line as usize).wrapping_sub(1)) {
                    let pad: String = line
                        .chars()
                        .take((d.col as usize).saturating_sub(1))
                        .map(|c| if c == '\t' { '\t' } else { ' ' })
                        .collect();
                    eprintln!("{line}\n{pad}^");
                }
            }
            if r.output.is_none() {
                failed = true;
            }
        }
        times.extend(r.times);
        if let Some(out) = r.output {
            outputs.push(out);
        }
    }
    if o.timing {
        timing_report(&times);
    }
    let joined = outputs.join(&b"// -----\n"[..]);
    if failed {
        if o.output != "-" && !o.verify_diags {
            tessel::output::remove_stale(std::path::Path::new(&o.output));
        } else if o.split && !o.verify_diags {
            // As mlir-opt: the parts that went through still print.
            let _ = std::io::stdout().write_all(&joined);
        }
        return ExitCode::from(1);
    }
    if o.verify_diags {
        return ExitCode::SUCCESS;
    }
    if o.output == "-" {
        let _ = std::io::stdout().write_all(&joined);
    } else if let Err(e) = tessel::output::write(std::path::Path::new(&o.output), &joined, false) {
        eprintln!("error: {e}");
        return ExitCode::from(1);
    }
    ExitCode::SUCCESS
}
