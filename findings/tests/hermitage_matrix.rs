//! The Hermitage matrix shows what user-written scenario files name as text: a scenario name and a
//! statement (in a system's error, the `how` of a cell) holding HTML, quotes and Markdown table syntax
//! come out escaped in the HTML page and in every Markdown column, and the near miss, ordinary names,
//! comes out as written.

use findings::{HermitageMatrix, ScenarioResult, ScenarioVerdict, hermitage_html, hermitage_markdown};

const NAME: &str = "<img src=x onerror=alert('n')>|G0";
const STATEMENT: &str = "update test set value = '<b>' where id = 1 | 2; -- \"quoted\" & [link](x)";

fn matrix(scenario: &str, how: &str, history: &str) -> HermitageMatrix {
    HermitageMatrix {
        columns: vec!["G0".into()],
        results: vec![ScenarioResult {
            db: "engine|<i>".into(),
            isolation: "serializable".into(),
            scenario: scenario.into(),
            column: "G0".into(),
            verdict: ScenarioVerdict::Prevented,
            how: how.into(),
            history: Some(history.into()),
        }],
    }
}

#[test]
fn a_hostile_scenario_name_and_statement_are_text_in_html() {
    let html = hermitage_html(&matrix(NAME, STATEMENT, "histories/a b'<c>.jsonl"));
    assert!(!html.contains("<img"), "{html}");
    assert!(!html.contains("<b>") && !html.contains("<i>"), "{html}");
    assert!(html.contains("&lt;img src=x onerror=alert(&#39;n&#39;)&gt;|G0"), "{html}");
    assert!(
        html.contains("<td class=\"l\">update test set value = &#39;&lt;b&gt;&#39; where id = 1 | 2; -- &quot;quoted&quot; &amp; [link](x)</td>"),
        "{html}"
    );
    // The column's tooltip, an attribute, cannot be closed by either.
    assert!(
        html.contains("title=\"&lt;img src=x onerror=alert(&#39;n&#39;)&gt;|G0: update test set value = &#39;"),
        "{html}"
    );
    assert!(html.contains("<a href=\"histories/a b&#39;&lt;c&gt;.jsonl\">"), "{html}");
}

#[test]
fn a_hostile_scenario_name_and_statement_stay_in_their_markdown_cells() {
    let md = hermitage_markdown(&matrix(NAME, STATEMENT, "histories/a b'<c>|.jsonl"));
    let last = md.lines().last().unwrap();
    assert_eq!(
        last,
        "| engine\\|&lt;i&gt; | serializable | &lt;img src=x onerror=alert('n')&gt;\\|G0 | prevented \
         | update test set value = '&lt;b&gt;' where id = 1 \\| 2; -- \"quoted\" &amp; \\[link\\](x) \
         | [histories/a b'&lt;c&gt;\\|.jsonl](histories/a%20b%27%3Cc%3E%7C.jsonl) |"
    );
    // Every row of both tables has exactly its columns' unescaped pipes.
    for line in md.lines().filter(|l| l.starts_with('|')) {
        let pipes = line.match_indices('|').filter(|(i, _)| !line[..*i].ends_with('\\')).count();
        assert!(pipes == 4 || pipes == 7, "{pipes} cell borders in {line}");
    }
    assert!(md.contains("| engine\\|&lt;i&gt; | serializable | ✓ |"), "{md}");
}

#[test]
fn ordinary_names_come_out_as_written() {
    let m = matrix("G0", "blocked", "histories/engine-serializable-G0.jsonl");
    let md = hermitage_markdown(&m);
    assert!(md.ends_with(
        "| engine\\|&lt;i&gt; | serializable | G0 | prevented | blocked | [histories/engine-serializable-G0.jsonl](histories/engine-serializable-G0.jsonl) |\n"
    ));
    let html = hermitage_html(&m);
    assert!(html.contains(
        "<td class=\"l\">G0</td><td class=\"prevented\">prevented</td><td class=\"l\">blocked</td><td class=\"l\"><a href=\"histories/engine-serializable-G0.jsonl\">histories/engine-serializable-G0.jsonl</a></td>"
    ));
}
