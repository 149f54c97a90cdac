//! The `guid` command: generate, inspect and compose k-ordered ids.

mod cli;
mod compose;
mod docs;
mod extract;
mod form;
mod generate;
mod id;
mod inspect;
mod output;
mod report;
mod rfc3339;
mod value;

use std::process::ExitCode;

use clap::Parser;
use clap::error::ErrorKind;

use crate::cli::{Cli, Command, Gen};

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return usage(e),
    };
    // Bare `guid` is `guid gen`, as bare `uuidgen` and `ulid` print one id.
    let command = cli
        .command
        .unwrap_or_else(|| Command::Gen(Gen::parse_from(["gen"]).args));
    let mut out = output::stdout();
    output::exit(match command {
        Command::Gen(args) => generate::run(&args, &mut out),
        Command::Inspect(args) => inspect::run(&args, &mut out),
        Command::Compose(args) => compose::run(&args, &mut out),
        Command::Serve(args) => return kguid_service::serve_main(*args),
        Command::Completions { shell } => docs::completions(shell, &mut out),
        Command::Man { command } => docs::man(command.as_deref(), &mut out),
    })
}

/// Help and version go to stdout with status 0. A bad flag value is one
/// line on stderr naming the value and what is wrong, status 2; other usage
/// errors keep clap's hints.
fn usage(e: clap::Error) -> ExitCode {
    if matches!(
        e.kind(),
        ErrorKind::InvalidValue | ErrorKind::ValueValidation
    ) {
        let text = e.render().to_string();
        let message: Vec<&str> = text
            .lines()
            .take_while(|line| !line.trim().is_empty())
            .map(str::trim)
            .collect();
        let message = message.join(" ");
        output::error(message.strip_prefix("error: ").unwrap_or(&message));
        return ExitCode::from(output::USAGE);
    }
    let _ = e.print();
    ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(output::USAGE))
}
