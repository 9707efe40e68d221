//! What `huddle party` says in its hello: whether it runs a job file, the
//! job's settings, the engine's settings of its request
//! ([`RunRequest::settings`]), the batch and where it came from, the deal it
//! replays, and the job's hash. In this order, which is the order in which a
//! difference is found: a job's key is named before the option it set.

use crate::job::LoadedJob;
use huddle_engine::RunRequest;
use huddle_net::{Form, Settings, Value};

/// The wire name of the batch (instances evaluated at once).
pub const BATCH: &str = "batch";

/// The hello's settings; `batch`: how this party has it (given, counted in
/// its input file, or left open for the others to set).
pub fn settings(
    request: &RunRequest,
    job: Option<&LoadedJob>,
    batch: (Form, Value),
    deal: Option<&str>,
) -> Settings {
    let mut s = Settings::new();
    s.option("job", Value::Bool(job.is_some()));
    let (keys, hash) = job.map(LoadedJob::hello_settings).unzip();
    s.extend(keys.unwrap_or_default());
    s.extend(request.settings());
    s.set(BATCH, batch.0, batch.1);
    s.option(
        "dealt",
        deal.map_or(Value::Absent, |d| Value::Text(d.into())),
    );
    // Last: it differs whenever a key does, and the key is named first.
    s.set(
        "job.hash",
        Form::Job,
        hash.map_or(Value::Absent, Value::Text),
    );
    s
}
