//! No import cycles between the modules of any crate of the workspace.
//!
//! Reads every crate's `src/**/*.rs` (each root: `lib.rs`, `main.rs`) and
//! builds its module graph. A node is a module file, down to two levels
//! (`ttp`, `sharing`, `sharing::convert`, `garble::linear`, `chaos::report`):
//! a deeper file counts with its ancestor at that depth, an inline module
//! (`mod x { … }`) with the file it is written in (read together, one
//! place), and the crate root is the node `crate`. A node has an edge to
//! another when its code names one of the other's items: a `use` (`use
//! crate::a::B`, `use super::{c, D}`, `use child::E`) or a path in code
//! (`crate::a::f()`, `super::g`, `child::h`), with `self` and `super`
//! resolved and `use` bindings followed, so a path through a re-export leads
//! to the file that defines the item.
//!
//! A child naming its parent's items counts like any other edge: a parent
//! that calls its child while the child uses the parent's types is the
//! hub-file knot this test is there to prevent (a `mod.rs` holding the
//! `Channel` its protocols use and running them). What does not count: a
//! `mod` declaration, a `pub use` that only re-exports (the module's own
//! code does not use the name), a `use` that binds a module (`use
//! crate::garble;`: each path through it counts, to where it leads), and
//! test-only code (`#[cfg(test)]` modules and items: nothing outside the
//! tests names them, so they close no cycle). `--nocapture` prints every
//! crate's graph.
//!
//! A knot (a set of nodes each reachable from every other) fails the test
//! with one of its cycles and the reference behind each edge, unless it is
//! listed, exactly, in [`KNOWN_CYCLES`]. A listed knot that a module joins,
//! or that shrinks or goes away, fails too, so the list stays true; what it
//! cannot catch is a new edge between two modules already in one listed
//! knot.

mod graph;
mod lex;
mod modules;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Import cycles that are known and not yet broken, each a knot to break:
/// the crate, then the nodes of the knot. (Mutual recursion belongs in one
/// file: the secret-sharing engine's `evaluate` and its conversion step,
/// which runs a recombining program through `evaluate`, are both in
/// `sharing/evaluate.rs`; `convert.rs` holds what a protocol's `split`
/// sees, and names neither.)
const KNOWN_CYCLES: &[(&str, &[&str])] = &[];

/// A crate of the workspace: its name and the root files of its targets
/// under `src/` (a library and a binary are separate crates to rustc).
struct Krate {
    name: String,
    src: PathBuf,
    roots: Vec<PathBuf>,
}

fn workspace_crates() -> Vec<Krate> {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the crate sits in crates/");
    let mut out = Vec::new();
    for entry in std::fs::read_dir(crates).expect("crates/ reads") {
        let dir = entry.expect("a directory entry").path();
        let src = dir.join("src");
        let roots: Vec<PathBuf> = ["lib.rs", "main.rs"]
            .iter()
            .map(PathBuf::from)
            .filter(|r| src.join(r).is_file())
            .collect();
        if roots.is_empty() {
            continue;
        }
        let name = dir
            .file_name()
            .expect("a crate directory has a name")
            .to_string_lossy()
            .into_owned();
        out.push(Krate { name, src, roots });
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

/// Every `.rs` file under `dir`, keyed by its path relative to `base`.
fn sources(base: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, String>) {
    for entry in std::fs::read_dir(dir).expect("a source directory reads") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            sources(base, &path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).expect("a source file reads");
            let relative = path.strip_prefix(base).expect("under src/").to_path_buf();
            out.insert(relative, text);
        }
    }
}

/// One line per node: `node → its targets`.
fn show_graph(g: &graph::Graph) -> String {
    g.iter()
        .map(|(from, to)| {
            let to: Vec<&str> = to.keys().map(String::as_str).collect();
            format!("  {from} → {}", to.join(", "))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn no_crate_has_an_import_cycle_between_its_modules_beyond_the_known_ones() {
    let mut problems = Vec::new();
    let mut known_seen = BTreeSet::new();
    let crates = workspace_crates();
    assert!(crates.len() >= 5, "the workspace's crates are found");
    for krate in &crates {
        let mut files = BTreeMap::new();
        sources(&krate.src, &krate.src, &mut files);
        let mut read = BTreeSet::new();
        for root in &krate.roots {
            let tree = modules::read_tree(&files, root);
            read.extend(tree.read.iter().cloned());
            for m in &tree.missing {
                problems.push(format!("{}: module {m} has no file", krate.name));
            }
            let g = graph::graph(&tree);
            println!("{} ({}):\n{}", krate.name, root.display(), show_graph(&g));
            for knot in graph::knots(&g) {
                let listed = KNOWN_CYCLES.iter().position(|(name, nodes)| {
                    *name == krate.name && nodes.iter().copied().eq(knot.iter().map(String::as_str))
                });
                match listed {
                    Some(k) => {
                        known_seen.insert(k);
                    }
                    None => {
                        // Through a module no listed knot has, if there is one:
                        // the new part of a knot that grew.
                        let listed = |n: &String| {
                            KNOWN_CYCLES.iter().any(|(name, nodes)| {
                                *name == krate.name && nodes.contains(&n.as_str())
                            })
                        };
                        let start = knot.iter().find(|n| !listed(n)).or(knot.iter().next());
                        problems.push(format!(
                            "{}: import cycle among {{{}}}:\n    {}",
                            krate.name,
                            knot.iter().cloned().collect::<Vec<_>>().join(", "),
                            graph::show_cycle(&g, &knot, start.map_or("", String::as_str))
                        ))
                    }
                }
            }
        }
        for file in files.keys().filter(|f| !read.contains(*f)) {
            problems.push(format!(
                "{}: src/{} is no module of the crate (not read)",
                krate.name,
                file.display()
            ));
        }
    }
    for (k, (name, nodes)) in KNOWN_CYCLES.iter().enumerate() {
        if !known_seen.contains(&k) {
            problems.push(format!(
                "{name}: the known cycle among {{{}}} is no longer a knot as listed: update KNOWN_CYCLES",
                nodes.join(", ")
            ));
        }
    }
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

/// The graph of a crate given as (path under `src/`, source) pairs, its
/// root `lib.rs`.
fn graph_of(files: &[(&str, &str)]) -> graph::Graph {
    let sources = files
        .iter()
        .map(|(path, text)| (PathBuf::from(path), text.to_string()))
        .collect();
    let tree = modules::read_tree(&sources, Path::new("lib.rs"));
    assert!(tree.missing.is_empty(), "{:?}", tree.missing);
    assert_eq!(tree.read.len(), files.len(), "every file is read");
    graph::graph(&tree)
}

fn edges(g: &graph::Graph) -> Vec<String> {
    g.iter()
        .flat_map(|(from, to)| to.keys().map(move |to| format!("{from} → {to}")))
        .collect()
}

#[test]
fn a_cycle_through_super_a_child_path_and_a_use_is_found() {
    let g = graph_of(&[
        ("lib.rs", "mod hub; pub struct Options;"),
        (
            "hub/mod.rs",
            "mod part; pub struct Channel; fn run() { part::step(crate::Options); }",
        ),
        ("hub/part.rs", "use super::Channel; pub fn step() {}"),
    ]);
    assert_eq!(
        edges(&g),
        ["hub → crate", "hub → hub::part", "hub::part → hub"]
    );
    let knots = graph::knots(&g);
    assert_eq!(knots.len(), 1);
    assert_eq!(knots[0].iter().collect::<Vec<_>>(), ["hub", "hub::part"]);
    let shown = graph::show_cycle(&g, &knots[0], "hub");
    assert!(
        shown.starts_with("hub → hub::part → hub")
            && shown.contains("hub/part.rs:1 names `super::Channel`"),
        "{shown}"
    );
}

#[test]
fn comments_literals_tests_and_bare_re_exports_make_no_edge() {
    let g = graph_of(&[
        (
            "lib.rs",
            "mod a; mod b; pub use a::A; // crate::b::B\n\
             /* nested /* crate::b::B */ crate::b::B */\n\
             const S: &str = \"crate::b::B\"; const R: &str = r#\"crate::b::B\"#;\n\
             const C: char = '\"'; fn f<'x>(_: &'x str) {}\n\
             #[cfg(test)] fn helper() { crate::b::B; }\n\
             #[cfg(test)] mod tests { use crate::b::B; }",
        ),
        ("a.rs", "pub struct A; fn g() { crate::b::f(); }"),
        // `crate::A` goes through the root's re-export to `a`.
        (
            "b.rs",
            "pub struct B; pub fn f() {} fn h() -> crate::A { crate::A }",
        ),
    ]);
    assert_eq!(edges(&g), ["a → b", "b → a"]);
    assert_eq!(
        graph::knots(&g).len(),
        1,
        "b reaches a through the re-export"
    );
}

#[test]
fn deeper_files_and_inline_modules_count_with_their_node() {
    let g = graph_of(&[
        ("lib.rs", "pub mod top; fn f() { top::inner::deep::g(); }"),
        (
            "top/mod.rs",
            "pub mod inner; mod local { pub fn h() { crate::other(); } }",
        ),
        ("top/inner/mod.rs", "pub mod deep;"),
        (
            "top/inner/deep.rs",
            "pub fn g() { super::super::local::h(); }",
        ),
    ]);
    assert_eq!(
        edges(&g),
        ["crate → top::inner", "top → crate", "top::inner → top"]
    );
    assert_eq!(graph::knots(&g).len(), 1);
}

#[test]
fn a_module_bound_by_use_is_no_edge_the_paths_through_it_are() {
    let g = graph_of(&[
        ("lib.rs", "mod a; mod hub;"),
        (
            "hub/mod.rs",
            "mod inner; pub use inner::X; fn f() { crate::a::g(); }",
        ),
        ("hub/inner.rs", "pub struct X;"),
        ("a.rs", "use crate::hub; pub fn g() -> hub::X { hub::X }"),
    ]);
    assert_eq!(edges(&g), ["a → hub::inner", "hub → a"]);
    assert!(graph::knots(&g).is_empty());
}
