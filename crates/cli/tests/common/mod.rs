//! Runs the built `guid` binary.

#![allow(dead_code)] // each test file uses a part

use std::ffi::OsStr;
use std::io::Write;
use std::process::{Command, Stdio};

/// What a run of the command left behind.
#[derive(Debug)]
pub struct Run {
    /// The exit status code.
    pub code: i32,
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
}

impl Run {
    /// The stdout lines.
    pub fn lines(&self) -> Vec<&str> {
        self.stdout.lines().collect()
    }

    /// Each stdout line as JSON.
    pub fn objects(&self) -> Vec<serde_json::Value> {
        self.stdout
            .lines()
            .map(|line| serde_json::from_str(line).expect("a JSON object per line"))
            .collect()
    }
}

/// A command for the binary, with no node id in its environment.
pub fn command<S: AsRef<OsStr>>(args: impl IntoIterator<Item = S>) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_guid"));
    cmd.args(args).env_remove("CONFIG_GUID_NODE_ID");
    cmd
}

/// Runs `guid args...` with `stdin` (empty if none) and waits for it.
pub fn run_with(mut cmd: Command, stdin: &[u8]) -> Run {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the guid binary starts");
    let mut input = child.stdin.take().expect("piped stdin");
    let stdin = stdin.to_vec();
    // Written from another thread so a large input cannot deadlock against
    // a full stdout pipe; a command that reads no stdin may close it early.
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&stdin);
    });
    let out = child.wait_with_output().expect("the guid binary runs");
    writer.join().expect("stdin writer");
    Run {
        code: out.status.code().expect("an exit code, not a signal"),
        stdout: String::from_utf8(out.stdout).expect("UTF-8 stdout"),
        stderr: String::from_utf8(out.stderr).expect("UTF-8 stderr"),
    }
}

/// Runs `guid args...` with empty stdin.
pub fn guid<S: AsRef<OsStr>>(args: impl IntoIterator<Item = S>) -> Run {
    run_with(command(args), b"")
}

/// Runs `guid args...` with `stdin`.
pub fn guid_stdin<S: AsRef<OsStr>>(args: impl IntoIterator<Item = S>, stdin: &[u8]) -> Run {
    run_with(command(args), stdin)
}
