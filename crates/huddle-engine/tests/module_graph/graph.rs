//! The module graph of a crate: which node's code names which other node's
//! items, and the knots (strongly connected sets) it has.

use crate::modules::Tree;
use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// Module files deeper than this are one node with their ancestor at this
/// depth (`sharing::client_aided::truncation` is `sharing::client_aided`).
const DEPTH: usize = 2;

/// The node of module `m`: the module whose file it is in (an inline
/// module is part of its file), its path cut to [`DEPTH`]; `crate` for the
/// root.
pub fn node_of(tree: &Tree, mut m: usize) -> String {
    while tree.modules[m].inline {
        m = tree.modules[m]
            .parent
            .expect("an inline module has a parent");
    }
    let path = &tree.modules[m].path;
    match path.len() {
        0 => "crate".to_string(),
        n => path[..n.min(DEPTH)].join("::"),
    }
}

/// What a path leads to: the module holding it, and whether it is that
/// module itself (rather than an item in it).
#[derive(Clone, Copy)]
struct Target {
    module: usize,
    is_module: bool,
}

/// Where a path named in `at` leads, following `use` bindings (re-exports
/// too); None for anything outside the crate (`std::…`, another crate,
/// `Self::…`, a type's associated item).
fn resolve(tree: &Tree, at: usize, path: &[String], fuel: u32) -> Option<Target> {
    let fuel = fuel.checked_sub(1)?;
    let modules = &tree.modules;
    let (mut here, rest) = match path.first()?.as_str() {
        "crate" => (0, &path[1..]),
        "self" => (at, &path[1..]),
        "super" => {
            let supers = path.iter().take_while(|s| *s == "super").count();
            let mut here = at;
            for _ in 0..supers {
                here = modules[here].parent?;
            }
            (here, &path[supers..])
        }
        _ => (at, path),
    };
    for (k, segment) in rest.iter().enumerate() {
        if let Some(&child) = modules[here].children.get(segment) {
            here = child;
            continue;
        }
        let bound = modules[here]
            .imports
            .iter()
            .find(|i| i.name.as_deref() == Some(segment.as_str()));
        match bound {
            Some(import) => {
                let target = resolve(tree, here, &import.path, fuel)?;
                if !target.is_module {
                    return Some(target);
                }
                here = target.module;
            }
            // A name the first segment does not find in the module's scope
            // is not the crate's (a local type, `std`, another crate).
            None if k == 0 && path[0] != "crate" && path[0] != "self" && path[0] != "super" => {
                return None
            }
            None => {
                return Some(Target {
                    module: here,
                    is_module: false,
                })
            }
        }
    }
    Some(Target {
        module: here,
        is_module: true,
    })
}

/// One reference that makes an edge: where it is and what it names.
#[derive(Clone, Debug)]
pub struct Evidence {
    pub file: String,
    pub line: usize,
    pub path: String,
}

/// Edges between nodes, each with the first reference found that makes it.
pub type Graph = BTreeMap<String, BTreeMap<String, Evidence>>;

/// The crate's module graph. Test-only modules and items are left out:
/// nothing outside the tests names them, so they close no cycle. A `pub
/// use` whose name the module's own code does not use is naming, not a
/// dependency: it only makes paths through the module lead on (resolved).
/// Nor is a `use` that binds a module (`use crate::a;`): the paths through
/// the binding make the edges, to wherever each leads. A glob (`use a::*`)
/// names what it cannot tell apart, so it is an edge to the module.
pub fn graph(tree: &Tree) -> Graph {
    let mut g = Graph::new();
    for (m, module) in tree.modules.iter().enumerate() {
        if module.test_only {
            continue;
        }
        let from = node_of(tree, m);
        g.entry(from.clone()).or_default();
        let uses = module
            .imports
            .iter()
            .filter(|i| !i.public || i.name.as_ref().is_none_or(|n| module.idents.contains(n)))
            .map(|i| (&i.path, i.line, i.name.is_some()));
        let named = module.named.iter().map(|n| (&n.path, n.line, false));
        for (path, line, binds_name) in uses.chain(named) {
            let Some(target) = resolve(tree, m, path, 32) else {
                continue;
            };
            if binds_name && target.is_module {
                // `use crate::garble;` names no item: the paths through it
                // (`garble::Optimizations`) are resolved one by one.
                continue;
            }
            if tree.modules[target.module].test_only {
                continue;
            }
            let to = node_of(tree, target.module);
            if to != from {
                g.entry(from.clone())
                    .or_default()
                    .entry(to)
                    .or_insert_with(|| Evidence {
                        file: module.file.display().to_string(),
                        line,
                        path: path.join("::"),
                    });
            }
        }
    }
    g
}

/// The knots of `g`: its strongly connected sets of more than one node
/// (Tarjan's algorithm), each sorted.
pub fn knots(g: &Graph) -> Vec<BTreeSet<String>> {
    struct State<'a> {
        g: &'a Graph,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        out: Vec<BTreeSet<String>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a str) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        s.on_stack.insert(v);
        let g = s.g;
        for w in g[v].keys() {
            let w = w.as_str();
            if !s.g.contains_key(w) {
                continue;
            }
            if !s.index.contains_key(w) {
                visit(s, w);
                let low = s.low[v].min(s.low[w]);
                s.low.insert(v, low);
            } else if s.on_stack.contains(w) {
                let low = s.low[v].min(s.index[w]);
                s.low.insert(v, low);
            }
        }
        if s.low[v] == s.index[v] {
            let mut set = BTreeSet::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(w);
                set.insert(w.to_string());
                if w == v {
                    break;
                }
            }
            if set.len() > 1 {
                s.out.push(set);
            }
        }
    }
    let mut s = State {
        g,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in g.keys() {
        if !s.index.contains_key(v.as_str()) {
            visit(&mut s, v);
        }
    }
    s.out.sort();
    s.out
}

/// A shortest cycle through `start`, within `knot`, as the lines that show
/// it: each edge with the reference that makes it.
pub fn show_cycle(g: &Graph, knot: &BTreeSet<String>, start: &str) -> String {
    let Some(start) = knot.get(start) else {
        return String::new();
    };
    // Breadth-first from `start` back to it, through the knot only.
    let mut came_from: BTreeMap<&str, &str> = BTreeMap::new();
    let mut queue = VecDeque::from([start.as_str()]);
    let mut last = None;
    'search: while let Some(v) = queue.pop_front() {
        for w in g[v].keys().filter(|w| knot.contains(*w)) {
            if w == start {
                last = Some(v);
                break 'search;
            }
            if !came_from.contains_key(w.as_str()) {
                came_from.insert(w, v);
                queue.push_back(w);
            }
        }
    }
    let mut cycle = vec![start.as_str()];
    let mut v = last.unwrap_or(start);
    while v != start {
        cycle.push(v);
        v = came_from[v];
    }
    cycle.push(start);
    cycle.reverse();
    let mut out = cycle.join(" → ");
    for pair in cycle.windows(2) {
        let e = &g[pair[0]][pair[1]];
        out += &format!(
            "\n      {} → {}: {}:{} names `{}`",
            pair[0], pair[1], e.file, e.line, e.path
        );
    }
    out
}
