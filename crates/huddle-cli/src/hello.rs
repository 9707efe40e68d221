//! What `huddle party` adds to the hello the engine builds
//! ([`huddle_engine::Run::handshake`]): whether it runs a job file, the
//! job's settings and `--roles` first, the job's hash last. The engine's settings of the
//! request, the batch and the deal come between, so a difference is found
//! in this order: a job's key is named before the option it set.

use crate::job::LoadedJob;
use huddle_net::{Form, Settings, Value};

/// The hello's settings before and after the engine's, for `job` (None:
/// a run without a job file) and `roles` (`--roles`: role r played by
/// party `roles[r]`).
pub fn job_settings(job: Option<&LoadedJob>, roles: Option<&[usize]>) -> (Settings, Settings) {
    let mut first = Settings::new();
    first.option("job", Value::Bool(job.is_some()));
    let (keys, hash) = job.map(LoadedJob::hello_settings).unzip();
    first.extend(keys.unwrap_or_default());
    first.option(
        "roles",
        roles.map_or(Value::Absent, |r| {
            Value::Text(huddle_engine::plan::roles_text(r))
        }),
    );
    let mut last = Settings::new();
    // Last: it differs whenever a key does, and the key is named first.
    last.set(
        "job.hash",
        Form::Job,
        hash.map_or(Value::Absent, Value::Text),
    );
    (first, last)
}
