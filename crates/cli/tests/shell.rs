//! The command follows shell conventions: completions and a man page,
//! bare `guid` prints an id, `--count`, `-` for standard input, and the
//! exit statuses `--help` documents.

mod common;

use guid::Id;
use std::process::Stdio;

use common::{Run, command, guid, guid_stdin};
use guid::Guid;

/// The subcommands every script and page must name.
const SUBCOMMANDS: [&str; 6] = ["gen", "inspect", "compose", "serve", "completions", "man"];

/// A global id and its object, as in cli.rs.
const G_STRING: &str = "N...0ngIdY...1..";
const G_OBJECT: &str = concat!(
    r#"{"kind":"g","drift":3,"time_ns":0,"time":"1970-01-01T00:00:00.000000000Z","#,
    r#""node":3881989318,"seq":8192,"hex":"600000073b13a63000002000","#,
    r#""string":"N...0ngIdY...1..","base62":"cdfbqcXW5qATldeS","json":"\"N...0ngIdY...1..\""}"#
);

/// A local id and its object.
const L_STRING: &str = "5...........1...";
const L_OBJECT: &str = concat!(
    r#"{"kind":"l","drift":3,"time_ns":0,"time":"1970-01-01T00:00:00.000000000Z","#,
    r#""node":null,"seq":8192,"hex":"6000000000002000","#,
    r#""string":"5...........1...","base62":"8F0M5kuYtDE","json":"\"*N............1..\""}"#
);

/// Asserts a run succeeded quietly and printed something.
fn printed(run: &Run) {
    assert_eq!((run.code, run.stderr.as_str()), (0, ""), "{run:?}");
    assert!(!run.stdout.is_empty());
}

/// Runs `script` with bash, `false` if bash is not installed.
fn bash(script: &str) -> Option<std::process::Output> {
    std::process::Command::new("bash")
        .args(["-c", script])
        .stdin(Stdio::null())
        .output()
        .ok()
}

// --- completions and man ------------------------------------------------------

/// The bash script names every subcommand, bash accepts its syntax, and
/// sourced, it completes subcommands and flag values.
#[test]
fn bash_completion_completes() {
    let run = guid(["completions", "bash"]);
    printed(&run);
    for word in SUBCOMMANDS {
        assert!(run.stdout.contains(word), "{word}");
    }
    let dir = std::env::temp_dir().join(format!("guid-completions-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let script = dir.join("guid.bash");
    std::fs::write(&script, &run.stdout).expect("script written");
    let path = script.display();
    let Some(syntax) = bash(&format!("bash -n '{path}'")) else {
        eprintln!("no bash: completion script not run");
        return;
    };
    assert!(syntax.status.success(), "{syntax:?}");
    let complete = |words: &str, cword: usize| {
        let out = bash(&format!(
            "source '{path}'; COMP_WORDS=({words}); COMP_CWORD={cword}; \
             _guid guid \"${{COMP_WORDS[COMP_CWORD]}}\" \"${{COMP_WORDS[COMP_CWORD-1]}}\"; \
             echo \"${{COMPREPLY[@]}}\""
        ))
        .expect("bash runs");
        assert!(out.status.success(), "{out:?}");
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    };
    let commands = complete("guid ''", 1);
    for word in SUBCOMMANDS {
        assert!(commands.split(' ').any(|w| w == word), "{word}: {commands}");
    }
    assert_eq!(complete("guid inspect --ext", 2), "--extract");
    assert_eq!(complete("guid gen --cou", 2), "--count");
    assert_eq!(
        complete("guid gen --format ''", 3),
        "string base62 hex json int"
    );
    let shells = complete("guid completions ''", 2);
    assert!(
        shells.ends_with("bash elvish fish powershell zsh"),
        "{shells}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The zsh and fish scripts name the subcommands and their flags.
#[test]
fn zsh_and_fish_completions_name_the_subcommands() {
    for shell in ["zsh", "fish"] {
        let run = guid(["completions", shell]);
        printed(&run);
        for word in SUBCOMMANDS.iter().chain(&["extract", "count", "remote"]) {
            assert!(run.stdout.contains(word), "{shell}: {word}");
        }
    }
    assert!(
        guid(["completions", "zsh"])
            .stdout
            .starts_with("#compdef guid")
    );
    assert!(
        guid(["completions", "fish"])
            .stdout
            .contains("complete -c guid")
    );
}

/// The man page starts with `.TH`, lists the subcommands' pages, and has
/// an EXIT STATUS section with the table of `--help`, line by line.
#[test]
fn man_page_lists_the_subcommands() {
    let run = guid(["man"]);
    printed(&run);
    assert!(
        run.stdout.starts_with(".TH guid 1 "),
        "{}",
        &run.stdout[..80]
    );
    assert!(run.stdout.contains(".SH SUBCOMMANDS"));
    for word in SUBCOMMANDS {
        assert!(run.stdout.contains(&format!("guid\\-{word}(1)")), "{word}");
    }
    let status = run.stdout.split(".SH \"EXIT STATUS\"\n.nf\n").nth(1);
    let status = status.expect("an EXIT STATUS section");
    assert!(status.contains("\n  2  usage error"), "{status}");
    assert!(status.contains("\n  3  a bad id"), "{status}");
    // The apostrophe string is defined once, after the title.
    assert_eq!(run.stdout.matches(".ds Aq").count(), 2);
}

/// Each subcommand the page refers to has its own page; other names are a
/// usage error.
#[test]
fn man_pages_of_subcommands() {
    for name in SUBCOMMANDS {
        let run = guid(["man", name]);
        printed(&run);
        let title = format!(".TH guid-{name} 1 ");
        assert!(run.stdout.starts_with(&title), "{name}");
    }
    let inspect = guid(["man", "inspect"]).stdout;
    for section in [
        ".SH OPTIONS\n",
        "\\fB\\-\\-extract\\fR",
        ".SH \"HOW AN ID IS READ\"\n.nf\n",
        ".SH \"WHAT --EXTRACT FINDS\"\n.nf\n",
        ".SH \"EXIT STATUS\"\n.nf\n",
    ] {
        assert!(inspect.contains(section), "{section}");
    }
    let run = guid(["man", "help"]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("'help'"), "{}", run.stderr);
}

// --- bare guid, --count and - -------------------------------------------------

/// `guid` alone prints one fresh global id, as `guid gen -n 1` does.
#[test]
fn bare_guid_prints_one_id() {
    let run = guid::<&str>([]);
    assert_eq!((run.code, run.stderr.as_str()), (0, ""), "{run:?}");
    assert_eq!(run.lines().len(), 1);
    let id: Guid = run.stdout.trim().parse().expect("a global id string");
    let made: Guid = guid(["gen", "-n", "1"]).stdout.trim().parse().expect("id");
    assert_eq!(id.drift(), made.drift());
    assert!(
        id.time().abs_diff(made.time()) < 60_000_000_000,
        "{id} {made}"
    );
    // The node is random, as for gen, and from CONFIG_GUID_NODE_ID if set.
    let mut cmd = command::<&str>([]);
    cmd.env("CONFIG_GUID_NODE_ID", "abc@go");
    let run = common::run_with(cmd, b"");
    let id: Guid = run.stdout.trim().parse().expect("id");
    assert_eq!(id.node(), 0x5305_1caf);
}

/// `--count` is `-n`.
#[test]
fn count_is_the_long_n() {
    for flags in [["-n", "3"], ["--count", "3"]] {
        let run = guid(["gen", flags[0], flags[1], "--local"]);
        assert_eq!(run.code, 0, "{run:?}");
        assert_eq!(run.lines().len(), 3, "{flags:?}");
    }
    assert_eq!(guid(["gen", "--count=2"]).lines().len(), 2);
    assert_eq!(guid(["gen", "--count", "0"]).stdout, "");
    assert!(guid(["gen", "--help"]).stdout.contains("-n, --count <N>"));
}

/// `inspect`'s output without the `"form"` field of each object.
fn formless(stdout: &str) -> String {
    stdout
        .split_inclusive('\n')
        .map(
            |line| match (line.find(r#","form":""#), line.find(r#"","drift""#)) {
                (Some(start), Some(end)) if start < end => {
                    format!("{}{}", &line[..start], &line[end + 1..])
                }
                _ => line.to_owned(),
            },
        )
        .collect()
}

/// `-` among the ids reads standard input there, one id per line; with no
/// ids at all too.
#[test]
fn dash_reads_standard_input() {
    let stdin = format!("{L_STRING}\n{G_STRING}\n");
    let run = guid_stdin(["inspect", "-"], stdin.as_bytes());
    assert_eq!((run.code, run.stderr.as_str()), (0, ""), "{run:?}");
    assert_eq!(formless(&run.stdout), format!("{L_OBJECT}\n{G_OBJECT}\n"));

    let run = guid_stdin(["inspect", G_STRING, "-", L_STRING], stdin.as_bytes());
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(
        formless(&run.stdout),
        format!("{G_OBJECT}\n{L_OBJECT}\n{G_OBJECT}\n{L_OBJECT}\n")
    );

    // Standard input is read once: a second `-` finds its end.
    let run = guid_stdin(["inspect", "-", "-"], stdin.as_bytes());
    assert_eq!(formless(&run.stdout), format!("{L_OBJECT}\n{G_OBJECT}\n"));

    let run = guid_stdin(
        ["inspect", "--extract", "-"],
        format!("a={G_STRING}").as_bytes(),
    );
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(
        formless(&run.stdout),
        G_OBJECT.replacen('{', "{\"line\":1,", 1) + "\n"
    );

    assert!(guid(["inspect", "--help"]).stdout.contains("`-`"));
}

// --- exit statuses ------------------------------------------------------------

/// `--help` of the command and of each subcommand that can fail documents
/// its statuses.
#[test]
fn help_documents_the_exit_statuses() {
    let cases: [(&[&str], &[&str]); 6] = [
        (
            &[],
            &["  0  ", "  1  ", "  2  ", "  3  ", "--remote", "guid serve"],
        ),
        (&["gen"], &["  0  ", "  1  ", "  2  ", "--remote"]),
        (&["inspect"], &["  0  ", "  1  ", "  2  ", "  3  "]),
        (&["compose"], &["  0  ", "  1  ", "  2  "]),
        (&["completions"], &["  0  ", "  1  ", "  2  "]),
        (&["man"], &["  0  ", "  1  ", "  2  "]),
    ];
    for (cmd, needles) in cases {
        let run = guid(cmd.iter().chain(&["--help"]));
        assert_eq!(run.code, 0);
        let status = run.stdout.split("Exit status:\n").nth(1);
        let status = status.unwrap_or_else(|| panic!("{cmd:?}: {}", run.stdout));
        for needle in needles {
            assert!(status.contains(needle), "{cmd:?} {needle:?}: {status}");
        }
        if !needles.contains(&"  3  ") {
            assert!(!status.contains("  3  "), "{cmd:?}: {status}");
        }
    }
}

/// 2: a usage error, whether clap's or a value refused after parsing.
#[test]
fn status_2_is_a_usage_error() {
    for args in [
        &["gen", "--bogus"][..],
        &["gen", "-n", "ten"],
        &["gen", "--format", "int"],
        &["inspect", "--from", "xml", G_STRING],
        &["compose"],
        &["compose", "--time", "yesterday"],
        &["completions", "csh"],
        &["man", "nope"],
    ] {
        let run = guid(args);
        assert_eq!(run.code, 2, "{args:?}: {run:?}");
        assert!(run.stderr.starts_with("error: "), "{args:?}: {run:?}");
        assert!(!run.stderr.contains("invalid id"), "{args:?}: {run:?}");
        assert_eq!(run.stdout, "", "{args:?}");
    }
}

/// 3: an id that is no id, or reads as several; the good ones are still
/// printed.
#[test]
fn status_3_is_a_bad_id() {
    // Drift code 0 in both kinds: no sortable string, nor any other form.
    for input in ["nope", "N...0ngIdY...1.!", "................"] {
        let run = guid(["inspect", G_STRING, input]);
        assert_eq!(run.code, 3, "{input}: {run:?}");
        assert_eq!(formless(&run.stdout), format!("{G_OBJECT}\n"));
        assert!(
            run.stderr
                .starts_with(&format!("error: invalid id '{input}': ")),
            "{run:?}"
        );
    }
    let run = guid_stdin(["inspect"], b"nope\n");
    assert_eq!(run.code, 3, "{run:?}");
    // Text with no id in it is no error in extract mode.
    let run = guid_stdin(["inspect", "--extract"], b"nope nothing here\n");
    assert_eq!((run.code, run.stdout.as_str()), (0, ""), "{run:?}");
}

/// 1: no id service answered.
#[test]
fn status_1_is_an_unreachable_service() {
    // Port 1 on loopback refuses connections.
    for flake in [&[][..], &["--flake"]] {
        let run = guid(
            ["gen", "--remote", "127.0.0.1:1", "-n", "1"]
                .iter()
                .chain(flake),
        );
        assert_eq!(run.code, 1, "{run:?}");
        assert_eq!(run.stdout, "");
        assert!(
            run.stderr
                .starts_with("error: cannot get ids from the id service"),
            "{run:?}"
        );
    }
}

/// 1: standard output cannot be written, for every command that writes.
#[cfg(target_os = "linux")]
#[test]
fn status_1_is_an_unwritable_output() {
    let cases: [&[&str]; 7] = [
        &[],
        &["gen", "-n", "100000"],
        &["inspect", G_STRING],
        &["inspect", "--extract", G_STRING],
        &["compose", "--time", "0"],
        &["completions", "bash"],
        &["man"],
    ];
    for args in cases {
        let full = std::fs::File::create("/dev/full").expect("/dev/full");
        let out = command(args)
            .stdout(full)
            .stderr(Stdio::piped())
            .output()
            .expect("runs");
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(
            err.starts_with("error: cannot write to standard output"),
            "{err}"
        );
    }
}

/// 0: a reader that goes early is no failure, for the long outputs too.
#[test]
fn a_closed_pipe_is_quiet() {
    use std::io::Read;
    for args in [
        &["man"][..],
        &["completions", "zsh"],
        &["gen", "-n", "10000000"],
    ] {
        let mut child = command(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("starts");
        let mut first = [0; 1];
        child
            .stdout
            .take()
            .expect("stdout")
            .read_exact(&mut first)
            .expect("a byte");
        let out = child.wait_with_output().expect("ends");
        assert_eq!(out.status.code(), Some(0), "{args:?}: {out:?}");
        assert_eq!(String::from_utf8_lossy(&out.stderr), "", "{args:?}");
    }
}
