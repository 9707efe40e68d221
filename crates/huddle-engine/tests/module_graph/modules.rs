//! A crate's module tree, read from its source files: for every module its
//! children, its `use` declarations and the paths its code names.

use crate::lex::{closing, item_end, statement_end, tokens, Tok};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// One leaf of a `use` tree: `use a::{b, c::d as e}` has two.
#[derive(Debug)]
pub struct Import {
    /// The path as written (`crate`, `super`, `self` or a name first).
    pub path: Vec<String>,
    /// The name it binds (None: a glob or `_`).
    pub name: Option<String>,
    /// Whether it re-exports (`pub use`, `pub(crate) use`, …).
    pub public: bool,
    pub line: usize,
}

/// A path of two or more segments named in code (`super::Channel`,
/// `crate::error::RunError`, `program::Layer`, `Exit::Input`).
#[derive(Debug)]
pub struct Named {
    pub path: Vec<String>,
    pub line: usize,
}

#[derive(Debug)]
pub struct Module {
    /// From the crate root (empty for the root).
    pub path: Vec<String>,
    pub parent: Option<usize>,
    /// The file its code is in (an inline module's is its parent's).
    pub file: PathBuf,
    /// Whether it is written inline (`mod x { … }`) in its parent's file.
    pub inline: bool,
    /// Compiled only for tests (`#[cfg(test)]` on it or on an ancestor).
    pub test_only: bool,
    pub children: BTreeMap<String, usize>,
    pub imports: Vec<Import>,
    pub named: Vec<Named>,
    /// Every identifier of its own code outside `use` declarations: whether
    /// a re-exported name is also used here.
    pub idents: BTreeSet<String>,
}

/// A crate's modules (the root first) and what reading them found wrong.
pub struct Tree {
    pub modules: Vec<Module>,
    /// Files read, relative to `src/`.
    pub read: BTreeSet<PathBuf>,
    /// Modules declared whose file is missing.
    pub missing: Vec<String>,
}

/// The module tree of the crate whose root file is `root` (relative to
/// `src/`, e.g. `lib.rs`), its sources keyed by their path relative to `src/`.
pub fn read_tree(sources: &BTreeMap<PathBuf, String>, root: &Path) -> Tree {
    let mut tree = Tree {
        modules: Vec::new(),
        read: BTreeSet::new(),
        missing: Vec::new(),
    };
    let root_module = tree.add(Vec::new(), None, root.to_path_buf(), false, false);
    let dir = root.parent().unwrap_or(Path::new("")).to_path_buf();
    tree.read_file(sources, root_module, root, &dir);
    tree
}

impl Tree {
    fn add(
        &mut self,
        path: Vec<String>,
        parent: Option<usize>,
        file: PathBuf,
        inline: bool,
        test_only: bool,
    ) -> usize {
        self.modules.push(Module {
            path,
            parent,
            file,
            inline,
            test_only,
            children: BTreeMap::new(),
            imports: Vec::new(),
            named: Vec::new(),
            idents: BTreeSet::new(),
        });
        self.modules.len() - 1
    }

    fn read_file(
        &mut self,
        sources: &BTreeMap<PathBuf, String>,
        module: usize,
        file: &Path,
        children_dir: &Path,
    ) {
        self.read.insert(file.to_path_buf());
        let toks = tokens(&sources[file]);
        self.read_items(sources, module, &toks, children_dir);
    }

    fn child(
        &mut self,
        parent: usize,
        name: &str,
        file: PathBuf,
        inline: bool,
        test_only: bool,
    ) -> usize {
        let mut path = self.modules[parent].path.clone();
        path.push(name.to_string());
        let test_only = test_only || self.modules[parent].test_only;
        let child = self.add(path, Some(parent), file, inline, test_only);
        self.modules[parent]
            .children
            .insert(name.to_string(), child);
        child
    }

    /// Reads the items of `module` from `toks`; its file modules' files are
    /// in `children_dir`.
    fn read_items(
        &mut self,
        sources: &BTreeMap<PathBuf, String>,
        module: usize,
        toks: &[Tok],
        children_dir: &Path,
    ) {
        let (mut i, mut cfg_test, mut public) = (0, false, false);
        while i < toks.len() {
            let t = &toks[i];
            let next = |k: usize| toks.get(i + k).map_or("", |t| t.text.as_str());
            if t.is("#") && (next(1) == "[" || (next(1) == "!" && next(2) == "[")) {
                let open = if next(1) == "!" { i + 2 } else { i + 1 };
                let close = closing(toks, open);
                let inner: Vec<&str> = toks[open + 1..close]
                    .iter()
                    .map(|t| t.text.as_str())
                    .collect();
                // An inner attribute (`#![…]`) applies to the module, not to the next item.
                cfg_test |= open == i + 1 && inner == ["cfg", "(", "test", ")"];
                for t in &toks[open + 1..close] {
                    if t.is_ident() {
                        self.modules[module].idents.insert(t.text.clone());
                    }
                }
                i = close + 1;
                continue;
            }
            if t.is("pub") {
                public = true;
                i += if next(1) == "(" {
                    closing(toks, i + 1) + 1 - i
                } else {
                    1
                };
                continue;
            }
            if t.is("mod") && toks.get(i + 1).is_some_and(Tok::is_ident) {
                let name = toks[i + 1].text.clone();
                let dir = children_dir.join(&name);
                if next(2) == "{" {
                    let close = closing(toks, i + 2);
                    let file = self.modules[module].file.clone();
                    let child = self.child(module, &name, file, true, cfg_test);
                    self.read_items(sources, child, &toks[i + 3..close], &dir);
                    i = close + 1;
                } else {
                    let flat = children_dir.join(format!("{name}.rs"));
                    let nested = dir.join("mod.rs");
                    match [flat, nested].into_iter().find(|f| sources.contains_key(f)) {
                        Some(file) => {
                            let child = self.child(module, &name, file.clone(), false, cfg_test);
                            self.read_file(sources, child, &file, &dir);
                        }
                        None => {
                            let mut path = self.modules[module].path.clone();
                            path.push(name);
                            self.missing.push(path.join("::"));
                        }
                    }
                    i += 3;
                }
                (cfg_test, public) = (false, false);
                continue;
            }
            if t.is("use") {
                let end = statement_end(toks, i);
                if !cfg_test {
                    let mut leaves = Vec::new();
                    let mut pos = i + 1;
                    use_tree(&toks[..end - 1], &mut pos, Vec::new(), &mut leaves);
                    for (path, name) in leaves {
                        self.modules[module].imports.push(Import {
                            path,
                            name,
                            public,
                            line: t.line,
                        });
                    }
                }
                i = end;
                (cfg_test, public) = (false, false);
                continue;
            }
            if cfg_test {
                // A test-only item: nothing outside the tests depends on it.
                i = item_end(toks, i);
                (cfg_test, public) = (false, false);
                continue;
            }
            public = false;
            if t.is_ident() {
                self.modules[module].idents.insert(t.text.clone());
                let starts_path = i == 0 || !toks[i - 1].is("::");
                if starts_path {
                    let mut path = vec![t.text.clone()];
                    let mut k = i + 1;
                    while toks.get(k).is_some_and(|t| t.is("::"))
                        && toks.get(k + 1).is_some_and(Tok::is_ident)
                    {
                        path.push(toks[k + 1].text.clone());
                        k += 2;
                    }
                    if path.len() >= 2 {
                        self.modules[module]
                            .named
                            .push(Named { path, line: t.line });
                    }
                }
            }
            i += 1;
        }
    }
}

/// Reads one `use` tree from `toks[*pos..]` below `prefix` into `leaves`:
/// (path, bound name).
fn use_tree(
    toks: &[Tok],
    pos: &mut usize,
    prefix: Vec<String>,
    leaves: &mut Vec<(Vec<String>, Option<String>)>,
) {
    let mut path = prefix;
    while *pos < toks.len() {
        let t = &toks[*pos];
        *pos += 1;
        match t.text.as_str() {
            "::" => {}
            "{" => {
                while *pos < toks.len() && !toks[*pos].is("}") {
                    use_tree(toks, pos, path.clone(), leaves);
                    if toks.get(*pos).is_some_and(|t| t.is(",")) {
                        *pos += 1;
                    }
                }
                *pos += 1;
                return;
            }
            "*" => {
                leaves.push((path, None));
                return;
            }
            _ if t.is_ident() => {
                path.push(t.text.clone());
                if toks.get(*pos).is_some_and(|t| t.is("::")) {
                    continue;
                }
                if path.last().is_some_and(|s| s == "self") {
                    path.pop();
                }
                let mut name = path.last().cloned();
                if toks.get(*pos).is_some_and(|t| t.is("as")) {
                    name = toks
                        .get(*pos + 1)
                        .map(|t| t.text.clone())
                        .filter(|n| n != "_");
                    *pos += 2;
                }
                leaves.push((path, name));
                return;
            }
            _ => return,
        }
    }
}
