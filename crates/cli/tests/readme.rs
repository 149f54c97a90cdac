//! README.md's shell examples run as shown: each `$ command` of a
//! `console` block prints the lines under it, and each `guid` line of a
//! `sh` block runs. Commands that make fresh ids (`guid`, `guid gen`) are
//! checked for the shape of their output, the others line by line.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;

/// One `$ command` and the lines shown under it.
#[derive(Debug)]
struct Example {
    command: String,
    shown: Vec<String>,
}

/// The README beside the manifest.
fn readme() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md");
    std::fs::read_to_string(path).expect("README.md")
}

/// The lines of the fenced blocks tagged `lang`, block by block.
fn blocks(text: &str, lang: &str) -> Vec<Vec<String>> {
    let mut blocks = Vec::new();
    let mut open: Option<Vec<String>> = None;
    for line in text.lines() {
        match (&mut open, line.strip_prefix("```")) {
            (None, Some(tag)) if tag == lang => open = Some(Vec::new()),
            (Some(_), Some("")) => blocks.extend(open.take()),
            (Some(block), None) => block.push(line.to_owned()),
            _ => {}
        }
    }
    blocks
}

/// The examples of the `console` blocks.
fn examples(text: &str) -> Vec<Example> {
    let mut examples: Vec<Example> = Vec::new();
    for block in blocks(text, "console") {
        for line in block {
            match line.strip_prefix("$ ") {
                Some(command) => examples.push(Example {
                    command: command.to_owned(),
                    shown: Vec::new(),
                }),
                None => examples
                    .last_mut()
                    .expect("a block starts with a command")
                    .shown
                    .push(line),
            }
        }
    }
    examples
}

/// Runs `script` with bash, the built `guid` first on the PATH, in `home`.
fn bash(script: &str, home: &Path) -> std::process::Output {
    let bin = Path::new(env!("CARGO_BIN_EXE_guid"))
        .parent()
        .expect("the binary's directory");
    let path = std::env::join_paths(
        std::iter::once(bin.to_path_buf()).chain(
            std::env::var_os("PATH")
                .iter()
                .flat_map(std::env::split_paths),
        ),
    )
    .expect("PATH");
    Command::new("bash")
        .args(["-c", script])
        .env("PATH", path)
        .env("HOME", home)
        .env_remove("CONFIG_GUID_NODE_ID")
        .stdin(Stdio::null())
        .output()
        .expect("bash runs")
}

/// Whether `command` prints fresh ids, which differ from run to run.
fn fresh(command: &str) -> bool {
    command.split('|').any(|part| {
        matches!(
            part.split_whitespace().collect::<Vec<_>>()[..],
            ["guid"] | ["guid", "gen", ..]
        )
    })
}

/// Asserts a fresh id's line has the shape of the one shown: the same
/// length, or for an object, the same fields.
fn same_shape(got: &str, shown: &str) {
    match (
        serde_json::from_str::<Value>(shown),
        serde_json::from_str::<Value>(got),
    ) {
        (Ok(Value::Object(shown)), Ok(Value::Object(got))) => {
            assert!(shown.keys().eq(got.keys()), "{got:?} like {shown:?}");
        }
        _ => assert_eq!(got.len(), shown.len(), "{got:?} like {shown:?}"),
    }
}

/// A directory of its own for this run.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("guid-readme-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch directory");
    dir
}

/// Every console example prints what README shows: standard output's lines
/// then, as shown where they fall, the `error:` lines of standard error.
#[test]
fn console_examples_print_what_is_shown() {
    let examples = examples(&readme());
    assert!(examples.len() >= 5, "{examples:?}");
    assert!(examples.iter().any(|e| e.command.contains("--extract")));
    let home = scratch("console");
    for Example { command, shown } in &examples {
        let out = bash(command, &home);
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let (errors, printed): (Vec<&String>, Vec<&String>) =
            shown.iter().partition(|line| line.starts_with("error: "));
        assert_eq!(stderr.lines().collect::<Vec<_>>(), errors, "{command}");
        let lines: Vec<&str> = stdout.lines().collect();
        assert_eq!(lines.len(), printed.len(), "{command}: {stdout}");
        for (got, shown) in lines.iter().zip(&printed) {
            if fresh(command) {
                same_shape(got, shown);
            } else {
                assert_eq!(got, shown, "{command}");
            }
        }
    }
    let _ = std::fs::remove_dir_all(&home);
}

/// Each `guid` line of the sh blocks (the install lines of completions and
/// man pages) runs and writes a file that is not empty.
#[test]
fn install_lines_run() {
    let home = scratch("install");
    let lines: Vec<String> = blocks(&readme(), "sh")
        .into_iter()
        .flatten()
        .filter(|line| line.starts_with("guid ") || line.starts_with("for "))
        .collect();
    assert!(lines.len() >= 5, "{lines:?}");
    for line in &lines {
        let target = line
            .split("> ")
            .nth(1)
            .and_then(|rest| rest.split([' ', ';']).next())
            .expect("each line writes a file");
        let target = target.replacen('~', &home.display().to_string(), 1);
        let dir = Path::new(&target).parent().expect("a directory");
        std::fs::create_dir_all(dir).expect("its directory");
        let out = bash(line, &home);
        assert!(out.status.success(), "{line}: {out:?}");
        let written = if line.starts_with("for ") {
            std::fs::read_dir(dir).expect("pages").count()
        } else {
            usize::from(std::fs::metadata(&target).is_ok_and(|m| m.len() > 0))
        };
        assert!(written > 0, "{line}");
    }
    let pages = home.join(".local/share/man/man1");
    for name in ["guid.1", "guid-gen.1", "guid-inspect.1", "guid-man.1"] {
        let page = std::fs::read_to_string(pages.join(name)).expect(name);
        assert!(page.starts_with(".TH "), "{name}");
    }
    let _ = std::fs::remove_dir_all(&home);
}
