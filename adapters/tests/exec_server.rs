//! Serving a `System` over the exec protocol, on saved input: the embedded engine behind
//! `exec_server::serve` answers one session's requests line for line (one session, so the order of the
//! answers is the order of the requests), refuses a malformed line with a fatal error that names it, and a
//! planted fault stops serving at exactly the request it names, which is never answered.

use std::io::Write;
use std::sync::{Arc, Mutex};

use adapters::exec_server::{self, FaultAction, PlantedFault, Served};
use adapters::{EngineSystem, System};

/// An output the test can read after `serve` took it.
#[derive(Clone, Default)]
struct Shared(Arc<Mutex<Vec<u8>>>);

impl Write for Shared {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().expect("the buffer").extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn serve(input: &str, fault: Option<&PlantedFault>) -> (Served, Vec<String>) {
    let system: Arc<dyn System> = Arc::new(EngineSystem::new(None));
    let hello = exec_server::hello_for(system.as_ref(), "test", "1");
    let out = Shared::default();
    let served = exec_server::serve(system, &hello, input.as_bytes(), out.clone(), fault).expect("served");
    let text = String::from_utf8(out.0.lock().expect("the buffer").clone()).expect("UTF-8");
    (served, text.lines().map(str::to_string).collect())
}

const SESSION: &str = r#"{"id":1,"op":"prepare","registers":[[1,10]]}
{"id":2,"session":7,"op":"open"}
{"id":3,"session":7,"op":"begin","isolation":"serializable"}
{"id":4,"session":7,"op":"append","key":"x","value":3}
{"id":5,"session":7,"op":"read_list","key":"x"}
{"id":6,"session":7,"op":"read","key":1}
{"id":7,"session":7,"op":"insert","key":1,"value":5}
{"id":8,"session":7,"op":"commit"}
{"id":9,"session":7,"op":"close"}
"#;

#[test]
fn one_session_is_answered_line_for_line() {
    let (served, lines) = serve(SESSION, None);
    assert_eq!(served, Served::InputClosed);
    assert_eq!(
        lines,
        [
            r#"{"id":1,"ok":true}"#,
            r#"{"id":2,"ok":true}"#,
            r#"{"id":3,"ok":true}"#,
            r#"{"id":4,"ok":true}"#,
            r#"{"id":5,"ok":true,"value":[3]}"#,
            r#"{"id":6,"ok":true,"value":10}"#,
            r#"{"id":7,"error":{"kind":"abort","cause":"already-exists","message":"key 1 already exists"}}"#,
            concat!(
                r#"{"id":8,"error":{"kind":"abort","cause":"in-failed-transaction","#,
                r#""message":"current transaction is aborted, commands ignored until rollback"}}"#
            ),
            r#"{"id":9,"ok":true}"#,
        ]
    );
}

#[test]
fn a_malformed_line_and_an_unknown_session_are_fatal_answers_naming_them() {
    let input = "{\"id\":4,\"op\":\"fly\"}\n{\"id\":5,\"session\":9,\"op\":\"commit\"}\n";
    let (_, lines) = serve(input, None);
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(lines[0].starts_with(r#"{"id":4,"error":{"kind":"fatal","cause":"bad-request""#), "{}", lines[0]);
    assert!(lines[0].contains("fly"), "{}", lines[0]);
    assert_eq!(lines[1], r#"{"id":5,"error":{"kind":"fatal","cause":"no-session","message":"no open session 9"}}"#);
}

#[test]
fn a_planted_fault_stops_at_the_request_it_names_without_answering_it() {
    let fault: PlantedFault = "read_list:1".parse().expect("OP:N");
    let fault = PlantedFault { action: FaultAction::Hang, ..fault };
    let (served, lines) = serve(SESSION, Some(&fault));
    assert_eq!(served, Served::Fault(FaultAction::Hang));
    // The requests before it were answered (1 and 2 by the reading thread; 3 and 4 by the session's
    // thread, which may still be at it when serving stops); the fifth and later never are.
    let ids: Vec<&str> = lines.iter().map(|l| &l[..8]).collect();
    assert_eq!(ids[..2], [r#"{"id":1,"#, r#"{"id":2,"#], "{lines:?}");
    assert!(
        ids.iter().all(|id| [r#"{"id":1,"#, r#"{"id":2,"#, r#"{"id":3,"#, r#"{"id":4,"#].contains(id)),
        "{lines:?}"
    );
    assert!("commit".parse::<PlantedFault>().is_err());
    assert!("commit:0".parse::<PlantedFault>().is_err());
}
