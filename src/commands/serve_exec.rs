//! `isocheck serve-exec` (hidden): the embedded engine, with its planted defect if any, served over the
//! exec protocol on standard input and output, so that `--db exec --cmd 'isocheck serve-exec'` runs the
//! same engine as `--db engine` through the protocol. Its planted faults (`--crash-on`, `--hang-on`,
//! `--fatal-on`) make it die, hang or answer a fatal error at a chosen request, deterministically, for the tests of a lost program. The
//! protocol itself is the `adapters` crate's (`exec_server`).

use std::sync::Arc;

use adapters::exec_server::{self, FaultAction, PlantedFault, Served};
use adapters::{EngineSystem, System};

use crate::cli::ServeExecArgs;

/// The exit status of a planted crash.
const CRASH_STATUS: i32 = 3;

pub fn run(args: &ServeExecArgs) -> anyhow::Result<u8> {
    let system: Arc<dyn System> = Arc::new(EngineSystem::new(args.defect));
    let version = system.version();
    let hello = exec_server::hello_for(system.as_ref(), "isocheck serve-exec", &version);
    let fault = match (&args.crash_on, &args.hang_on, &args.fatal_on) {
        (Some(f), _, _) => Some(PlantedFault { action: FaultAction::Exit, ..f.clone() }),
        (None, Some(f), _) => Some(PlantedFault { action: FaultAction::Hang, ..f.clone() }),
        (None, None, Some(f)) => Some(PlantedFault { action: FaultAction::Fatal, ..f.clone() }),
        (None, None, None) => None,
    };
    let stdin = std::io::stdin().lock();
    match exec_server::serve(system, &hello, stdin, std::io::stdout(), fault.as_ref())? {
        Served::InputClosed => Ok(crate::exit::VALID),
        Served::Fault(FaultAction::Exit) => std::process::exit(CRASH_STATUS),
        Served::Fault(FaultAction::Hang) => loop {
            std::thread::park();
        },
        // Answered by `serve`, which goes on serving.
        Served::Fault(FaultAction::Fatal) => Ok(crate::exit::VALID),
    }
}
