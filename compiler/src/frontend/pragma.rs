//! Finds Tessel's pragmas in a C source by tokenizing each preprocessor line:
//! `#pragma scop`, `#pragma endscop`, and the share hints of paper 000 (Fig. 1),
//! spelled `#pragma tessel share(...)` or `#pragma acc share(...)`.

use crate::diag::Diagnostic;
use crate::scop::{Loc, ShareHint};

/// One `#pragma scop` ... `#pragma endscop` region, by line (1-based).
#[derive(Clone, Debug)]
pub struct Region {
    pub begin: u32,
    pub end: u32,
    pub hints: Vec<ShareHint>,
}

#[derive(Debug, PartialEq, Clone)]
enum Tok {
    Ident(String),
    Int(i64),
    Punct(char),
}

/// Splits a line into identifiers, integers and single-character punctuation, each with
/// its 1-based column.
fn tokenize(line: &str) -> Vec<(Tok, u32)> {
    let b: Vec<char> = line.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_whitespace() {
            i += 1;
        } else if c == '/' && b.get(i + 1) == Some(&'/') {
            break;
        } else if c.is_ascii_alphabetic() || c == '_' {
            let s = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == '_') {
                i += 1;
            }
            out.push((Tok::Ident(b[s..i].iter().collect()), s as u32 + 1));
        } else if c.is_ascii_digit() {
            let s = i;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            let v = b[s..i]
                .iter()
                .collect::<String>()
                .parse()
                .unwrap_or(i64::MAX);
            out.push((Tok::Int(v), s as u32 + 1));
        } else {
            out.push((Tok::Punct(c), i as u32 + 1));
            i += 1;
        }
    }
    out
}

/// Scans `text` (the contents of `file`) for SCoP regions and share hints.
pub fn find_regions(file: &str, text: &str) -> Result<Vec<Region>, Diagnostic> {
    let mut regions = Vec::new();
    let mut open: Option<(u32, Vec<ShareHint>)> = None;
    let mut pending_hints: Vec<ShareHint> = Vec::new();
    let loc = |line: u32, col: u32| Loc {
        file: file.to_string(),
        line,
        col,
    };
    for (n, line) in text.lines().enumerate() {
        let ln = n as u32 + 1;
        let toks = tokenize(line);
        if toks.len() < 2
            || toks[0].0 != Tok::Punct('#')
            || toks[1].0 != Tok::Ident("pragma".into())
        {
            continue;
        }
        let rest = &toks[2..];
        match rest.first() {
            Some((Tok::Ident(w), col)) if w == "scop" => {
                if open.is_some() {
                    return Err(Diagnostic::new(loc(ln, *col), "nested '#pragma scop'"));
                }
                open = Some((ln, std::mem::take(&mut pending_hints)));
            }
            Some((Tok::Ident(w), col)) if w == "endscop" => match open.take() {
                Some((b, hints)) => regions.push(Region {
                    begin: b,
                    end: ln,
                    hints,
                }),
                None => {
                    return Err(Diagnostic::new(
                        loc(ln, *col),
                        "'#pragma endscop' without a matching '#pragma scop'",
                    ))
                }
            },
            Some((Tok::Ident(w), _)) if w == "tessel" || w == "acc" => {
                if let Some((Tok::Ident(s), col)) = rest.get(1) {
                    if s == "share" {
                        let hints = parse_share(&rest[2..], ln, *col, file)?;
                        match &mut open {
                            Some((_, h)) => h.extend(hints),
                            None => pending_hints.extend(hints),
                        }
                    } else if w == "tessel" {
                        return Err(Diagnostic::new(
                            loc(ln, *col),
                            format!("unknown Tessel pragma '{s}' (expected 'share')"),
                        ));
                    }
                }
            }
            _ => {}
        }
    }
    if let Some((b, _)) = open {
        return Err(Diagnostic::new(
            loc(b, 1),
            "'#pragma scop' without a matching '#pragma endscop'",
        ));
    }
    if let Some(h) = pending_hints.first() {
        return Err(Diagnostic::new(
            h.loc.clone(),
            "share pragma is not followed by a '#pragma scop' region",
        ));
    }
    Ok(regions)
}

/// Parses `( arraySpec {, arraySpec} )` after the word `share`.
fn parse_share(
    toks: &[(Tok, u32)],
    line: u32,
    col: u32,
    file: &str,
) -> Result<Vec<ShareHint>, Diagnostic> {
    let at = |c: u32, msg: &str| {
        Err(Diagnostic::new(
            Loc {
                file: file.to_string(),
                line,
                col: c,
            },
            msg.to_string(),
        ))
    };
    let mut i = 0;
    let col_of = |i: usize| toks.get(i).map(|t| t.1).unwrap_or(col);
    if toks.first().map(|t| &t.0) != Some(&Tok::Punct('(')) {
        return at(col_of(0), "expected '(' after 'share'");
    }
    i += 1;
    let mut hints = Vec::new();
    loop {
        let (name, ncol) = match toks.get(i) {
            Some((Tok::Ident(n), c)) => (n.clone(), *c),
            _ => return at(col_of(i), "expected an array name in share pragma"),
        };
        i += 1;
        let mut dims = Vec::new();
        while toks.get(i).map(|t| &t.0) == Some(&Tok::Punct('[')) {
            i += 1;
            let start = i;
            let mut text = String::new();
            let mut expect_operand = true;
            while let Some((t, c)) = toks.get(i) {
                match t {
                    Tok::Punct(']') => break,
                    Tok::Punct('*') if expect_operand && text.is_empty() => {
                        text.push('*');
                        expect_operand = false;
                    }
                    Tok::Punct(op @ ('+' | '-' | '*' | '/')) if !expect_operand && text != "*" => {
                        text.push(*op);
                        expect_operand = true;
                    }
                    Tok::Int(v) if expect_operand => {
                        text += &v.to_string();
                        expect_operand = false;
                    }
                    Tok::Ident(id) if expect_operand && matches!(id.as_str(), "TBX" | "TBY" | "TBZ") => {
                        text += id;
                        expect_operand = false;
                    }
                    _ => {
                        return at(
                            *c,
                            "expected an integer, TBX, TBY, TBZ, an operator or '*' in a share partition",
                        )
                    }
                }
                i += 1;
            }
            if toks.get(i).map(|t| &t.0) != Some(&Tok::Punct(']')) || i == start || expect_operand {
                return at(col_of(i), "malformed partition length in share pragma");
            }
            i += 1;
            dims.push(text);
        }
        let mut coalesce = false;
        if toks.get(i).map(|t| &t.0) == Some(&Tok::Punct(':')) {
            match toks.get(i + 1) {
                Some((Tok::Ident(w), _)) if w == "coalesce" => {
                    coalesce = true;
                    i += 2;
                }
                _ => {
                    return at(
                        col_of(i + 1),
                        "expected 'coalesce' after ':' in share pragma",
                    )
                }
            }
        }
        if hints.iter().any(|h: &ShareHint| h.array == name) {
            return at(
                ncol,
                &format!("array '{name}' appears twice in share pragma"),
            );
        }
        hints.push(ShareHint {
            array: name,
            dims,
            coalesce,
            loc: Loc {
                file: file.to_string(),
                line,
                col: ncol,
            },
        });
        match toks.get(i) {
            Some((Tok::Punct(','), _)) => i += 1,
            Some((Tok::Punct(')'), _)) => break,
            _ => return at(col_of(i), "expected ',' or ')' in share pragma"),
        }
    }
    Ok(hints)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn share_pragma_of_fig2() {
        let src =
            "#pragma acc share(A[TBY][*]:coalesce, B[*][TBX])\n#pragma scop\nx;\n#pragma endscop\n";
        let r = find_regions("t.c", src).unwrap();
        assert_eq!(r.len(), 1);
        assert_eq!((r[0].begin, r[0].end), (2, 4));
        let h = &r[0].hints;
        assert_eq!(h[0].array, "A");
        assert_eq!(h[0].dims, vec!["TBY", "*"]);
        assert!(h[0].coalesce);
        assert_eq!(h[1].dims, vec!["*", "TBX"]);
        assert!(!h[1].coalesce);
    }

    #[test]
    fn share_pragma_errors_are_located() {
        let e = find_regions(
            "t.c",
            "#pragma tessel share(A[TBW])\n#pragma scop\n#pragma endscop\n",
        )
        .unwrap_err();
        assert_eq!((e.loc.line, e.loc.col), (1, 24));
        let e = find_regions("t.c", "#pragma scop\n").unwrap_err();
        assert!(e.message.contains("without a matching"));
    }
}
