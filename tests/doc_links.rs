//! Every relative link of the documentation resolves: README.md, CHANGELOG.md and every Markdown page under
//! docs/ link files that exist, and a link's `#anchor` into a Markdown page names one of its headings (as
//! GitHub derives anchors from headings). Links to other sites are not followed.
//!
//! The links are read by hand rather than with a Markdown crate: inline links and images
//! (`[text](target "title")`), reference definitions (`[label]: target`), outside fenced code blocks and code
//! spans, which is all the documentation uses.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::util::repo;

/// The Markdown files whose links are checked: README.md, CHANGELOG.md and docs/**/*.md.
fn documentation() -> Vec<PathBuf> {
    fn markdown_under(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                markdown_under(&path, out);
            } else if path.extension().is_some_and(|e| e == "md") {
                out.push(path);
            }
        }
    }
    let mut files = vec![repo("README.md"), repo("CHANGELOG.md")];
    markdown_under(&repo("docs"), &mut files);
    files.sort();
    files
}

/// The lines of `text` outside fenced code blocks, numbered from 1.
fn outside_fences(text: &str) -> Vec<(usize, &str)> {
    let mut fence: Option<&str> = None;
    let mut lines = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        let marker = ["```", "~~~"].into_iter().find(|m| trimmed.starts_with(m));
        match (fence, marker) {
            (None, Some(m)) => fence = Some(m),
            (Some(open), Some(m)) if open == m => fence = None,
            (Some(_), _) => {}
            (None, None) => lines.push((i + 1, line)),
        }
    }
    lines
}

/// `line` with the text of every code span (between backticks) replaced by spaces.
fn blank_code_spans(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut in_code = false;
    for c in line.chars() {
        if c == '`' {
            in_code = !in_code;
            out.push(c);
        } else {
            out.push(if in_code { ' ' } else { c });
        }
    }
    out
}

/// Every link target of `text` with its line: inline links and images, and reference definitions.
fn link_targets(text: &str) -> Vec<(usize, String)> {
    let mut targets = Vec::new();
    for (number, line) in outside_fences(text) {
        let line = blank_code_spans(line);
        let trimmed = line.trim_start();
        if trimmed.starts_with('[')
            && let Some(close) = trimmed.find("]:")
        {
            let target = trimmed[close + 2..].split_whitespace().next().unwrap_or("");
            targets.push((number, target.trim_matches(['<', '>']).to_string()));
            continue;
        }
        let mut rest = line.as_str();
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let Some(end) = after.find(')') else { break };
            let inside = after[..end].trim();
            // `<...>` may hold spaces; otherwise a title may follow the target after a space.
            let target = match inside.strip_prefix('<') {
                Some(bracketed) => bracketed.split('>').next().unwrap_or(""),
                None => inside.split_whitespace().next().unwrap_or(""),
            };
            targets.push((number, target.to_string()));
            rest = &after[end..];
        }
    }
    targets
}

/// Whether a target points outside the repository (a scheme such as `https:` or `mailto:`).
fn is_external(target: &str) -> bool {
    target.starts_with("//")
        || target.split_once(':').is_some_and(|(scheme, _)| {
            !scheme.is_empty() && scheme.chars().all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
        })
}

/// The anchors GitHub gives the headings of `text`: lowercased, punctuation dropped but for `-` and `_`,
/// spaces made hyphens, and a repeated anchor numbered `-1`, `-2`, ...
fn heading_anchors(text: &str) -> Vec<String> {
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut anchors = Vec::new();
    for (_, line) in outside_fences(text) {
        let Some(heading) = line.strip_prefix('#') else { continue };
        let heading = heading.trim_start_matches('#');
        if !heading.starts_with(' ') {
            continue;
        }
        let slug: String = heading
            .trim()
            .to_lowercase()
            .chars()
            .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
            .map(|c| if c == ' ' { '-' } else { c })
            .collect();
        let count = seen.entry(slug.clone()).or_insert(0);
        anchors.push(if *count == 0 { slug.clone() } else { format!("{slug}-{count}") });
        *count += 1;
    }
    anchors
}

/// What is wrong with `target`, a link in `from`, or `None` when it resolves.
fn broken(from: &Path, target: &str) -> Option<String> {
    if target.is_empty() {
        return Some("an empty link".into());
    }
    if is_external(target) {
        return None;
    }
    let (path, anchor) = match target.split_once('#') {
        Some((path, anchor)) => (path, Some(anchor)),
        None => (target, None),
    };
    let file =
        if path.is_empty() { from.to_path_buf() } else { from.parent().expect("a file in a directory").join(path) };
    if !file.exists() {
        return Some(format!("{} does not exist", file.display()));
    }
    match anchor {
        Some(anchor) if file.extension().is_some_and(|e| e == "md") => {
            let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            let anchors = heading_anchors(&text);
            (!anchors.iter().any(|a| a == anchor))
                .then(|| format!("{} has no heading #{anchor} (it has {anchors:?})", file.display()))
        }
        _ => None,
    }
}

#[test]
fn every_relative_link_of_the_documentation_resolves() {
    let files = documentation();
    assert!(files.len() >= 4, "README.md, CHANGELOG.md and the docs/ pages: {files:?}");
    let mut checked = 0;
    let mut problems = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        for (line, target) in link_targets(&text) {
            checked += 1;
            if let Some(problem) = broken(file, &target) {
                problems.push(format!("{}:{line}: ({target}): {problem}", file.display()));
            }
        }
    }
    assert!(checked > 0, "the documentation has links");
    assert!(problems.is_empty(), "broken links:\n{}", problems.join("\n"));
}

#[test]
fn links_are_read_where_markdown_has_them_and_nowhere_else() {
    let text = "See [a](a.md), ![b](img/b.svg \"a title\") and [c](<c d.md>).\n\
                `[not](code.md)` in a code span\n\
                ```sh\n\
                [not](fenced.md)\n\
                ```\n\
                [label]: docs/e.md#part\n\
                [site](https://example.com/x) and [here](#top)\n";
    let targets: Vec<(usize, String)> = link_targets(text);
    let expected = [
        (1, "a.md"),
        (1, "img/b.svg"),
        (1, "c d.md"),
        (6, "docs/e.md#part"),
        (7, "https://example.com/x"),
        (7, "#top"),
    ];
    assert_eq!(targets, expected.map(|(l, t)| (l, t.to_string())));
    assert!(is_external("https://example.com/x") && is_external("mailto:a@b.c"));
    assert!(!is_external("docs/e.md#part") && !is_external("#top") && !is_external("a.md"));
}

#[test]
fn anchors_are_githubs_and_a_missing_file_or_heading_is_broken() {
    let text = "# Title\n## Scenarios: bank, write skew, YCSB-A\n### The `check` command\n## Title\n```\n# not\n```\n";
    assert_eq!(
        heading_anchors(text),
        vec!["title", "scenarios-bank-write-skew-ycsb-a", "the-check-command", "title-1"]
    );
    let readme = repo("README.md");
    assert_eq!(broken(&readme, "docs/checking.md"), None);
    assert_eq!(broken(&readme, "docs/checking.md#white-box-version-orders"), None);
    assert_eq!(broken(&readme, "https://example.invalid/nowhere"), None);
    assert!(broken(&readme, "docs/no-such-page.md").is_some_and(|p| p.contains("does not exist")));
    assert!(broken(&readme, "docs/checking.md#no-such-heading").is_some_and(|p| p.contains("no heading")));
}
