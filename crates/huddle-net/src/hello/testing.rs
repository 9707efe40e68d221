//! What the hello tests share: a hello of a fixed run, and settings from a
//! list.

use super::settings::{Form, Settings, Value};
use super::wire::{Hello, VERSION};

pub(super) fn hello(party: u32, settings: Settings) -> Hello {
    Hello {
        version: VERSION,
        party,
        parties: 3,
        session: "s".into(),
        circuit: [1; 32],
        settings,
    }
}

pub(super) fn settings(list: &[(&str, Form, Value)]) -> Settings {
    let mut s = Settings::new();
    for (name, form, value) in list {
        s.set(*name, *form, value.clone());
    }
    s
}
