//! Rust source as tokens, with comments and literals gone: what is left of a
//! path is then code, never a doc link or a message.

/// One token and the line it starts on.
#[derive(Clone, Debug)]
pub struct Tok {
    pub text: String,
    pub line: usize,
}

impl Tok {
    pub fn is(&self, text: &str) -> bool {
        self.text == text
    }

    /// An identifier, keywords included (`crate`, `super`, `self`); a
    /// macro's `$crate` counts as `crate`.
    pub fn is_ident(&self) -> bool {
        self.text
            .chars()
            .next()
            .is_some_and(|c| c.is_alphabetic() || c == '_')
    }
}

fn ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// `src` with every comment and every string, byte string, raw string and
/// character literal blanked to spaces; newlines stay, so lines still count.
pub fn blank(src: &str) -> String {
    let c: Vec<char> = src.chars().collect();
    let mut out: Vec<char> = Vec::with_capacity(c.len());
    let blank_to = |out: &mut Vec<char>, span: &[char]| {
        out.extend(span.iter().map(|&ch| if ch == '\n' { '\n' } else { ' ' }));
    };
    let mut i = 0;
    while i < c.len() {
        let at = |k: usize| c.get(k).copied();
        if at(i) == Some('/') && at(i + 1) == Some('/') {
            let end = (i..c.len()).find(|&k| c[k] == '\n').unwrap_or(c.len());
            blank_to(&mut out, &c[i..end]);
            i = end;
        } else if at(i) == Some('/') && at(i + 1) == Some('*') {
            // Block comments nest.
            let (mut depth, mut k) = (0usize, i);
            while k < c.len() {
                if at(k) == Some('/') && at(k + 1) == Some('*') {
                    depth += 1;
                    k += 2;
                } else if at(k) == Some('*') && at(k + 1) == Some('/') {
                    depth -= 1;
                    k += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    k += 1;
                }
            }
            blank_to(&mut out, &c[i..k.min(c.len())]);
            i = k;
        } else if let Some(end) = raw_string_end(&c, i) {
            blank_to(&mut out, &c[i..end]);
            i = end;
        } else if at(i) == Some('"') {
            let mut k = i + 1;
            while k < c.len() && c[k] != '"' {
                k += if c[k] == '\\' { 2 } else { 1 };
            }
            let end = (k + 1).min(c.len());
            blank_to(&mut out, &c[i..end]);
            i = end;
        } else if at(i) == Some('\'') && at(i + 1) == Some('\\') {
            // An escaped character: '\n', '\'', '\u{..}'.
            let mut k = i + 3;
            while k < c.len() && c[k] != '\'' {
                k += 1;
            }
            let end = (k + 1).min(c.len());
            blank_to(&mut out, &c[i..end]);
            i = end;
        } else if at(i) == Some('\'') && at(i + 2) == Some('\'') {
            blank_to(&mut out, &c[i..i + 3]);
            i += 3;
        } else {
            // Anything else, a lifetime's quote included.
            out.push(c[i]);
            i += 1;
        }
    }
    out.into_iter().collect()
}

/// Where a raw string (`r"…"`, `r#"…"#`, `br#"…"#`) starting at `i` ends.
fn raw_string_end(c: &[char], i: usize) -> Option<usize> {
    let starts_word = |k: usize| k == 0 || !ident_char(c[k - 1]);
    let r = match c.get(i) {
        Some('r') if starts_word(i) => i,
        Some('b') if starts_word(i) && c.get(i + 1) == Some(&'r') => i + 1,
        _ => return None,
    };
    let hashes = c[r + 1..].iter().take_while(|&&ch| ch == '#').count();
    if c.get(r + 1 + hashes) != Some(&'"') {
        return None;
    }
    let mut k = r + 2 + hashes;
    while k < c.len() {
        if c[k] == '"'
            && c[k + 1..]
                .iter()
                .take(hashes)
                .filter(|&&ch| ch == '#')
                .count()
                == hashes
        {
            return Some(k + 1 + hashes);
        }
        k += 1;
    }
    Some(c.len())
}

/// The tokens of blanked source ([`blank`]): identifiers, `::`, and every
/// other character on its own.
pub fn tokens(src: &str) -> Vec<Tok> {
    let text = blank(src);
    let c: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let (mut i, mut line) = (0, 1);
    while i < c.len() {
        let ch = c[i];
        if ch == '\n' {
            line += 1;
            i += 1;
        } else if ch.is_whitespace() {
            i += 1;
        } else if ident_char(ch) || (ch == '$' && c.get(i + 1).is_some_and(|&n| ident_char(n))) {
            let start = i;
            i += 1;
            while i < c.len() && ident_char(c[i]) {
                i += 1;
            }
            let word: String = c[start..i].iter().collect();
            let text = match word.as_str() {
                "$crate" => "crate".to_string(),
                _ => word,
            };
            out.push(Tok { text, line });
        } else if ch == ':' && c.get(i + 1) == Some(&':') {
            out.push(Tok {
                text: "::".into(),
                line,
            });
            i += 2;
        } else {
            out.push(Tok {
                text: ch.to_string(),
                line,
            });
            i += 1;
        }
    }
    out
}

/// The index of the bracket closing the one at `open` (any of `(`, `[`, `{`).
pub fn closing(toks: &[Tok], open: usize) -> usize {
    let mut depth = 0usize;
    for (k, t) in toks.iter().enumerate().skip(open) {
        match t.text.as_str() {
            "(" | "[" | "{" => depth += 1,
            ")" | "]" | "}" => {
                depth -= 1;
                if depth == 0 {
                    return k;
                }
            }
            _ => {}
        }
    }
    toks.len()
}

/// Where the item starting at `start` ends (one past it): at its `;`, or at
/// the brace that closes its body.
pub fn item_end(toks: &[Tok], start: usize) -> usize {
    let mut depth = 0usize;
    for (k, t) in toks.iter().enumerate().skip(start) {
        match t.text.as_str() {
            "(" | "[" | "{" => depth += 1,
            ")" | "]" => depth = depth.saturating_sub(1),
            "}" => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return k + 1;
                }
            }
            ";" if depth == 0 => return k + 1,
            _ => {}
        }
    }
    toks.len()
}

/// One past the `;` that ends the statement starting at `start` (a `use`
/// declaration: its braces do not end it).
pub fn statement_end(toks: &[Tok], start: usize) -> usize {
    let mut depth = 0usize;
    for (k, t) in toks.iter().enumerate().skip(start) {
        match t.text.as_str() {
            "(" | "[" | "{" => depth += 1,
            ")" | "]" | "}" => depth = depth.saturating_sub(1),
            ";" if depth == 0 => return k + 1,
            _ => {}
        }
    }
    toks.len()
}
