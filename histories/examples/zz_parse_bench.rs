use std::time::Instant;
fn main() {
    let text = std::fs::read_to_string("/tmp/perf/la-100k.jsonl").unwrap();
    let mut best = f64::MAX;
    for _ in 0..15 {
        let t = Instant::now();
        let h = histories::parse(&text, histories::Format::JsonLines, "x").unwrap();
        let e = t.elapsed().as_secs_f64();
        drop(h);
        best = best.min(e);
    }
    println!("best parse+settle of 100k: {:.1} ms", best * 1e3);
}
