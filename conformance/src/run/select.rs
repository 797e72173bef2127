//! Case selection: which cases a run includes, by `--only` globs on the id and by `--level`.
//!
//! Selection decides what a run can certify (a partial run certifies nothing it skipped), so
//! its matching rules are kept small, exact and tested on their own rather than left to a glob
//! library whose rules might drift.

use crate::case::Level;

/// Glob match on a case id: `*` matches any run of characters (slashes included), `?` one
/// character; a pattern without a slash or wildcard also matches a whole area (`eol` ≡ `eol/*`).
pub fn glob_match(pattern: &str, id: &str) -> bool {
    fn go(p: &[char], s: &[char]) -> bool {
        let (mut pi, mut si) = (0, 0);
        let (mut star, mut mark) = (None, 0);
        while si < s.len() {
            if pi < p.len() && (p[pi] == '?' || p[pi] == s[si]) {
                pi += 1;
                si += 1;
            } else if pi < p.len() && p[pi] == '*' {
                star = Some(pi);
                mark = si;
                pi += 1;
            } else if let Some(st) = star {
                pi = st + 1;
                mark += 1;
                si = mark;
            } else {
                return false;
            }
        }
        p[pi..].iter().all(|c| *c == '*')
    }
    let p: Vec<char> = pattern.chars().collect();
    let s: Vec<char> = id.chars().collect();
    if go(&p, &s) {
        return true;
    }
    !pattern.contains(['/', '*', '?']) && id.split('/').next() == Some(pattern)
}

/// Whether a case is selected by `--only` patterns (all when empty) and `--level` (that level
/// and below).
pub fn selected(id: &str, level: Option<Level>, only: &[String], max_level: Option<Level>) -> bool {
    let by_glob = only.is_empty() || only.iter().any(|p| glob_match(p, id));
    let by_level = match (max_level, level) {
        (Some(max), Some(l)) => l <= max,
        _ => true,
    };
    by_glob && by_level
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_and_levels() {
        assert!(glob_match("eol/*", "eol/crlf"));
        assert!(glob_match("eol", "eol/crlf"));
        assert!(!glob_match("eol", "eolx/crlf"));
        assert!(glob_match("*crlf*", "eol/a-crlf-b"));
        assert!(glob_match("e?l/c*f", "eol/crlf"));
        assert!(!glob_match("eol/c", "eol/crlf"));
        assert!(selected("a/b", Some(Level::Core), &[], Some(Level::Core)));
        assert!(!selected(
            "a/b",
            Some(Level::Extended),
            &[],
            Some(Level::Core)
        ));
        assert!(!selected("a/b", Some(Level::Core), &["c/*".into()], None));
    }
}
