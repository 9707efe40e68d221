//! The progress bar of `huddle local` and `huddle party`: the run's
//! [`Progress`] drawn on stderr while a run lasts longer than a second.

use huddle_engine::Progress;
use std::time::{Duration, Instant};

/// A progress bar on stderr while a run lasts longer than a second: steps
/// evaluated of all, instances per second, time left. Only on a terminal
/// and without --json; dropped (and cleared) when the run ends.
pub struct ProgressDisplay {
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    drawer: Option<std::thread::JoinHandle<()>>,
}

impl ProgressDisplay {
    /// Draws `progress` while the display lives, unless `quiet` or
    /// stderr is no terminal.
    pub fn start(quiet: bool, progress: &Progress) -> ProgressDisplay {
        use std::io::IsTerminal;
        use std::sync::atomic::{AtomicBool, Ordering};
        let stop = std::sync::Arc::new(AtomicBool::new(false));
        if quiet || !std::io::stderr().is_terminal() {
            return ProgressDisplay { stop, drawer: None };
        }
        let flag = stop.clone();
        let progress = progress.clone();
        let drawer = std::thread::spawn(move || {
            let begun = Instant::now();
            let mut bar: Option<indicatif::ProgressBar> = None;
            while !flag.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(100));
                let s = progress.snapshot();
                if begun.elapsed() < Duration::from_secs(1) || s.steps_total == 0 {
                    continue;
                }
                let bar = bar.get_or_insert_with(|| {
                    let b = indicatif::ProgressBar::new(s.steps_total);
                    if let Ok(style) = indicatif::ProgressStyle::with_template(
                        "{spinner} {prefix} [{bar:30}] {percent}% of {len} steps, {msg}, ETA {eta}",
                    ) {
                        b.set_style(style.progress_chars("=> "));
                    }
                    b
                });
                // The phase as the steps show it: none yet (key setup,
                // input sharing, a separate preprocessing), some, or all
                // (the checks and the outputs).
                bar.set_prefix(match s.steps_done {
                    0 => "setting up",
                    d if d < s.steps_total => "evaluating",
                    _ => "opening outputs",
                });
                let share = s.steps_done as f64 / s.steps_total as f64;
                let rate = s.instances as f64 * share / begun.elapsed().as_secs_f64();
                bar.set_message(format!("{rate:.3e} instances/s"));
                bar.set_position(s.steps_done);
            }
            if let Some(bar) = bar {
                bar.finish_and_clear();
            }
        });
        ProgressDisplay {
            stop,
            drawer: Some(drawer),
        }
    }
}

impl Drop for ProgressDisplay {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        if let Some(d) = self.drawer.take() {
            let _ = d.join();
        }
    }
}
