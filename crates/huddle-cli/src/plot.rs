//! `huddle bench ... --plot FILE.svg`: what a benchmark measured, drawn
//! from its JSON report (the figures printed are the figures drawn).

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use serde_json::{Map, Value};
use std::path::Path;

/// Distinct colours for series and bars; the TTP baseline is grey.
const PALETTE: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(23, 190, 207),
    RGBColor(188, 189, 34),
    RGBColor(31, 50, 100),
];
const BASELINE: RGBColor = RGBColor(150, 150, 150);

type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;

/// A bar's name and its stacked values, bottom first.
type StackedBar = (String, Vec<f64>);

fn fail(e: impl std::fmt::Display) -> String {
    format!("--plot: {e}")
}

/// A figure of `panels` panels (two per row) under a title: the panels'
/// areas, drawn by `draw`, then written to `path`.
fn figure(
    path: &Path,
    title: &str,
    panels: usize,
    draw: impl FnOnce(&[Area]) -> Result<(), String>,
) -> Result<(), String> {
    let columns = if panels > 1 { 2 } else { 1 };
    let rows = panels.div_ceil(columns).max(1);
    let size = (560 * columns as u32, 60 + 400 * rows as u32);
    let root = SVGBackend::new(path, size).into_drawing_area();
    root.fill(&WHITE).map_err(fail)?;
    let (top, body) = root.split_vertically(60);
    // Long titles (the benchmark's set-up) wrap onto a second line.
    let style = ("sans-serif", 15).into_font().color(&BLACK);
    let (first, second) = split_title(title, 2 * size.0 as usize / 15);
    top.draw_text(&first, &style, (10, 10)).map_err(fail)?;
    top.draw_text(&second, &style, (10, 32)).map_err(fail)?;
    let areas = body.split_evenly((rows, columns));
    draw(&areas[..panels.min(areas.len())])?;
    root.present().map_err(fail)
}

/// `title` cut at a space near `width` characters (the rest on line two,
/// shortened with an ellipsis if it is longer still).
fn split_title(title: &str, width: usize) -> (String, String) {
    let chars: Vec<char> = title.chars().collect();
    if chars.len() <= width {
        return (title.to_string(), String::new());
    }
    let cut = chars[..width]
        .iter()
        .rposition(|&c| c == ' ')
        .unwrap_or(width);
    let first: String = chars[..cut].iter().collect();
    let rest: Vec<char> = chars[cut..]
        .iter()
        .copied()
        .skip_while(|&c| c == ' ')
        .collect();
    let second: String = if rest.len() > width {
        rest[..width - 1].iter().chain(['…'].iter()).collect()
    } else {
        rest.iter().collect()
    };
    (first, second)
}

/// A log axis range around the positive `values`: whole decades.
fn decades(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = values
        .filter(|v| *v > 0.0 && v.is_finite())
        .fold((f64::INFINITY, 0f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
    if hi == 0.0 {
        return (0.1, 10.0);
    }
    (
        10f64.powf(lo.log10().floor()),
        10f64.powf((hi.log10() + 0.3).ceil()),
    )
}

/// The family a protocol's bar is grouped under: what it promises, among
/// how many parties (from the protocol table).
fn family(name: &str) -> String {
    use huddle_engine::protocol::{PartyRule, Security};
    let Ok(p) = huddle_engine::Protocol::parse(name) else {
        return "other".into();
    };
    let d = p.descriptor();
    let parties = match d.parties {
        PartyRule::Exactly(n) | PartyRule::AtLeast(n) => n,
    };
    match (d.security, d.dealer) {
        (Security::None, _) => "baseline (TTP)".into(),
        (_, Some(_)) => format!("{}PC with a dealer", parties - 1),
        (Security::SemiHonest, None) => format!("{parties}PC semi-honest"),
        (Security::MaliciousSelectiveAbort, None) => format!("{parties}PC malicious"),
    }
}

/// Bars on a linear axis from zero (so lengths compare), grouped by family
/// in the protocol table's order with a gap between families, a colour per
/// family (the TTP baseline grey) and a legend; the value above each bar.
fn bar_panel(area: &Area, caption: &str, bars: &[(String, f64)]) -> Result<(), String> {
    // Families in the table's order, each with its bars in that order.
    let order = |name: &str| {
        huddle_engine::Protocol::ALL
            .iter()
            .position(|p| p.name() == name)
            .unwrap_or(usize::MAX)
    };
    let mut sorted: Vec<&(String, f64)> = bars.iter().collect();
    sorted.sort_by_key(|b| order(&b.0));
    let mut groups: Vec<(String, Vec<&(String, f64)>)> = Vec::new();
    for bar in sorted {
        let f = family(&bar.0);
        match groups.iter_mut().find(|g| g.0 == f) {
            Some(g) => g.1.push(bar),
            None => groups.push((f, vec![bar])),
        }
    }
    // x of each bar: one unit per bar, one more between families.
    let mut placed: Vec<(f64, &(String, f64), usize)> = Vec::new();
    let mut x = 0.0;
    for (g, (_, members)) in groups.iter().enumerate() {
        for bar in members {
            placed.push((x, bar, g));
            x += 1.0;
        }
        x += 1.0;
    }
    let width = (x - 1.0).max(1.0);
    let top = bars.iter().map(|b| b.1).fold(0f64, f64::max).max(1e-9) * 1.15;
    let mut chart = ChartBuilder::on(area)
        .caption(caption, ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(30)
        .y_label_area_size(60)
        .build_cartesian_2d(-0.6f64..width - 0.4, 0f64..top)
        .map_err(fail)?;
    let names: Vec<(f64, String)> = placed.iter().map(|(x, b, _)| (*x, b.0.clone())).collect();
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(placed.len() * 4 + 4)
        .x_label_style(("sans-serif", if placed.len() > 8 { 10 } else { 13 }))
        .x_label_formatter(&|x| {
            names
                .iter()
                .find(|(at, _)| (at - x).abs() < 0.25)
                .map(|(_, n)| n.clone())
                .unwrap_or_default()
        })
        .y_label_formatter(&|y| format!("{y:.1e}"))
        .draw()
        .map_err(fail)?;
    for (g, (family, _)) in groups.iter().enumerate() {
        let colour = if family.starts_with("baseline") {
            BASELINE
        } else {
            PALETTE[g % PALETTE.len()]
        };
        let members: Vec<(f64, f64)> = placed
            .iter()
            .filter(|p| p.2 == g)
            .map(|(x, b, _)| (*x, b.1))
            .collect();
        chart
            .draw_series(members.iter().map(|&(x, v)| {
                Rectangle::new([(x - 0.4, 0.0), (x + 0.4, v.max(0.0))], colour.filled())
            }))
            .map_err(fail)?
            .label(family.as_str())
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], colour.filled()));
        let label = ("sans-serif", 12)
            .into_font()
            .color(&BLACK)
            .pos(Pos::new(HPos::Center, VPos::Bottom));
        chart
            .draw_series(
                members
                    .iter()
                    .map(|&(x, v)| Text::new(format!("{v:.2e}"), (x, v.max(0.0)), label.clone())),
            )
            .map_err(fail)?;
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
        .map_err(fail)
}

/// `bench protocols`: per measured quantity a panel of one bar per
/// protocol, grouped by family, the TTP beside them.
pub fn protocols(path: &Path, title: &str, report: &Map<String, Value>) -> Result<(), String> {
    let quantities = [
        ("and_gates_per_second", "AND gates per second"),
        ("mult32_per_second", "32-bit multiplications per second"),
        ("mult64_per_second", "64-bit multiplications per second"),
        ("aes128_blocks_per_second", "AES-128 blocks per second"),
    ];
    let panels: Vec<(&str, Vec<(String, f64)>)> = quantities
        .iter()
        .map(|(key, caption)| {
            let bars = report
                .iter()
                .filter_map(|(name, e)| {
                    e.get(key)
                        .and_then(Value::as_f64)
                        .map(|v| (name.clone(), v))
                })
                .collect::<Vec<_>>();
            (*caption, bars)
        })
        .filter(|(_, bars)| !bars.is_empty())
        .collect();
    figure(path, title, panels.len(), |areas| {
        for (area, (caption, bars)) in areas.iter().zip(&panels) {
            bar_panel(area, caption, bars)?;
        }
        Ok(())
    })
}

/// `bench garble`: per circuit, one stacked bar per protocol and party
/// count: seconds of setup, independent and dependent preprocessing, and
/// online evaluation.
pub fn garble(path: &Path, title: &str, report: &Map<String, Value>) -> Result<(), String> {
    let phases = [
        ("setup_seconds", "setup"),
        ("independent_seconds", "independent preprocessing"),
        ("dependent_seconds", "dependent preprocessing"),
        ("online_seconds", "online"),
    ];
    // Keys are circuit/protocol/n<parties>[/...]: one panel per circuit.
    let mut circuits: Vec<(String, Vec<StackedBar>)> = Vec::new();
    for (key, entry) in report {
        let mut parts = key.splitn(2, '/');
        let (circuit, rest) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
        let stack: Vec<f64> = phases
            .iter()
            .map(|(k, _)| entry.get(k).and_then(Value::as_f64).unwrap_or(0.0))
            .collect();
        let bar = (rest.replace('/', " "), stack);
        match circuits.iter_mut().find(|(c, _)| c == circuit) {
            Some((_, bars)) => bars.push(bar),
            None => circuits.push((circuit.to_string(), vec![bar])),
        }
    }
    // By protocol, then by party count as a number (n13 after n7).
    let order = |name: &str| {
        let mut words = name.split(' ');
        let protocol = words.next().unwrap_or("").to_string();
        let parties: usize = words
            .next()
            .and_then(|w| w.strip_prefix('n'))
            .and_then(|n| n.parse().ok())
            .unwrap_or(0);
        (protocol, parties, name.to_string())
    };
    for (_, bars) in &mut circuits {
        bars.sort_by_cached_key(|b| order(&b.0));
    }
    figure(path, title, circuits.len(), |areas| {
        for (area, (circuit, bars)) in areas.iter().zip(&circuits) {
            let n = bars.len().max(1);
            let top = bars
                .iter()
                .map(|b| b.1.iter().sum::<f64>())
                .fold(0f64, f64::max)
                * 1.15;
            let mut chart = ChartBuilder::on(area)
                .caption(format!("{circuit}: seconds per phase"), ("sans-serif", 18))
                .margin(12)
                .x_label_area_size(110)
                .y_label_area_size(60)
                .build_cartesian_2d(-0.5f64..n as f64 - 0.5, 0f64..top.max(1e-6))
                .map_err(fail)?;
            chart
                .configure_mesh()
                .disable_x_mesh()
                .x_labels(0)
                .y_desc("seconds")
                .draw()
                .map_err(fail)?;
            for (p, (_, phase)) in phases.iter().enumerate() {
                let colour = PALETTE[p % PALETTE.len()];
                chart
                    .draw_series(bars.iter().enumerate().map(|(i, (_, stack))| {
                        let below: f64 = stack[..p].iter().sum();
                        let x = i as f64;
                        Rectangle::new(
                            [(x - 0.35, below), (x + 0.35, below + stack[p])],
                            colour.filled(),
                        )
                    }))
                    .map_err(fail)?
                    .label(*phase)
                    .legend(move |(x, y)| {
                        Rectangle::new([(x, y - 5), (x + 12, y + 5)], colour.filled())
                    });
            }
            chart
                .configure_series_labels()
                .position(SeriesLabelPosition::UpperLeft)
                .background_style(WHITE.mix(0.85))
                .border_style(BLACK)
                .draw()
                .map_err(fail)?;
            // Names read upwards, ending under their bars (the mesh's own
            // labels would centre rotated text on the axis).
            let style = ("sans-serif", 12)
                .into_font()
                .transform(FontTransform::Rotate270)
                .color(&BLACK)
                .pos(Pos::new(HPos::Right, VPos::Center));
            let base = area.get_base_pixel();
            for (i, (name, _)) in bars.iter().enumerate() {
                let (x, y) = chart.backend_coord(&(i as f64, 0.0));
                area.draw(&Text::new(
                    name.clone(),
                    (x - base.0, y - base.1 + 6),
                    style.clone(),
                ))
                .map_err(fail)?;
            }
        }
        Ok(())
    })
}

/// `bench edit-distance`: wall seconds against online rounds, one line
/// per protocol through its string lengths (on a WAN the slope is the
/// round trip: rounds are what costs).
pub fn seconds_against_rounds(path: &Path, title: &str, rows: &[Value]) -> Result<(), String> {
    let mut series: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
    for row in rows {
        let (Some(protocol), Some(rounds), Some(seconds)) = (
            row.get("protocol").and_then(Value::as_str),
            row.get("online_rounds").and_then(Value::as_f64),
            row.get("wall_seconds").and_then(Value::as_f64),
        ) else {
            continue;
        };
        let point = (rounds.max(1.0), seconds);
        match series.iter_mut().find(|(p, _)| p == protocol) {
            Some((_, points)) => points.push(point),
            None => series.push((protocol.to_string(), vec![point])),
        }
    }
    log_log_lines(
        path,
        title,
        "seconds against online rounds",
        ("online rounds", "seconds"),
        &series,
    )
}

/// Named series of points on log-log axes (each line through its points,
/// the points marked), a colour each and a legend; `axes`: the x and y
/// descriptions.
pub fn log_log_lines(
    path: &Path,
    title: &str,
    caption: &str,
    axes: (&str, &str),
    series: &[(String, Vec<(f64, f64)>)],
) -> Result<(), String> {
    let (x_lo, x_hi) = decades(series.iter().flat_map(|s| s.1.iter().map(|p| p.0)));
    let (y_lo, y_hi) = decades(series.iter().flat_map(|s| s.1.iter().map(|p| p.1)));
    figure(path, title, 1, |areas| {
        let Some(area) = areas.first() else {
            return Ok(());
        };
        let mut chart = ChartBuilder::on(area)
            .caption(caption, ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(60)
            .build_cartesian_2d((x_lo..x_hi).log_scale(), (y_lo..y_hi).log_scale())
            .map_err(fail)?;
        chart
            .configure_mesh()
            .x_desc(axes.0)
            .y_desc(axes.1)
            .x_label_formatter(&|x| format!("{x:.0}"))
            .y_label_formatter(&|y| format!("{y}"))
            .draw()
            .map_err(fail)?;
        for (s, (protocol, points)) in series.iter().enumerate() {
            let colour = PALETTE[s % PALETTE.len()];
            chart
                .draw_series(LineSeries::new(
                    points.iter().copied(),
                    colour.stroke_width(2),
                ))
                .map_err(fail)?
                .label(protocol.as_str())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 16, y)], colour.stroke_width(2))
                });
            chart
                .draw_series(points.iter().map(|&p| Circle::new(p, 4, colour.filled())))
                .map_err(fail)?;
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()
            .map_err(fail)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The drawings hold what the reports say: every protocol's name and
    /// value, every phase, every series (the pictures themselves were
    /// looked at; see docs/deploy.md's figure).
    #[test]
    fn plots_show_every_measured_figure() {
        let dir = tempfile::tempdir().expect("temp dir");
        let report = json!({
            "ttp": {"and_gates_per_second": 3.1e9, "mult64_per_second": 2.0e8},
            "trio": {"and_gates_per_second": 1.2e9, "mult64_per_second": 4.0e7},
        });
        let path = dir.path().join("p.svg");
        protocols(&path, "bench protocols", report.as_object().expect("map")).expect("plot");
        let svg = std::fs::read_to_string(&path).expect("svg");
        for text in [
            "trio",
            "ttp",
            "1.20e9",
            "4.00e7",
            "AND gates per second",
            "64-bit",
            "3PC semi-honest",
            "baseline (TTP)",
        ] {
            assert!(svg.contains(text), "{text} missing");
        }
        assert!(!svg.contains("32-bit"), "no panel without figures");
        let report = json!({
            "aes128/bgw3/n3": {"setup_seconds": 0.1, "independent_seconds": 0.5,
                               "dependent_seconds": 0.2, "online_seconds": 0.05},
            "sha256/bgw3/n3": {"setup_seconds": 0.1, "independent_seconds": 1.5,
                               "dependent_seconds": 0.4, "online_seconds": 0.1},
        });
        garble(&path, "bench garble", report.as_object().expect("map")).expect("plot");
        let svg = std::fs::read_to_string(&path).expect("svg");
        for text in [
            "aes128: seconds",
            "sha256: seconds",
            "bgw3 n3",
            "online",
            "setup",
        ] {
            assert!(svg.contains(text), "{text} missing");
        }
        let rows = [
            json!({"protocol": "ca2pc", "online_rounds": 25, "wall_seconds": 1.3}),
            json!({"protocol": "ca2pc", "online_rounds": 97, "wall_seconds": 4.9}),
            json!({"protocol": "trio", "online_rounds": 63, "wall_seconds": 3.2}),
        ];
        seconds_against_rounds(&path, "edit distance", &rows).expect("plot");
        let svg = std::fs::read_to_string(&path).expect("svg");
        for text in ["ca2pc", "trio", "online rounds"] {
            assert!(svg.contains(text), "{text} missing");
        }
        assert!(svg.contains("<circle"), "points drawn");
    }

    #[test]
    fn long_titles_wrap_onto_a_second_line() {
        let (a, b) = split_title("one two three four", 10);
        assert_eq!((a.as_str(), b.as_str()), ("one two", "three four"));
        let (a, b) = split_title("one two three four five", 10);
        assert_eq!((a.as_str(), b.as_str()), ("one two", "three fou…"));
    }
}
