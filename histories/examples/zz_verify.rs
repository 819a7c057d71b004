use histories::fast_json::read_object_both_ways;
use rayon::prelude::*;
fn main() {
    for path in std::env::args().skip(1) {
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let (taken, bad) = lines
            .par_iter()
            .map(|l| {
                let (f, g) = read_object_both_ways(l);
                match f {
                    None => (0usize, 0usize),
                    Some(f) => (1, usize::from(Ok(f) != g)),
                }
            })
            .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
        println!("{path}: {} lines, fast path took {taken}, disagreed on {bad}", lines.len());
    }
}
