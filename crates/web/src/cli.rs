//! The `leadhub` command line. Scripts depend on the output: `user add` prints the user id and
//! `key create` the key, each alone on stdout's last line; everything else goes to stderr.
use clap::{Args, Parser, Subcommand};

use leadhub_db::Database;
use leadhub_domain::auth::NewUserRequest;

use crate::app::{self, Adapters, AppState};
use crate::config::Config;

#[derive(Parser, Debug)]
#[command(name = "leadhub", version, about = "Lead intake and team service")]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Migrate the database, then serve HTTP (the default).
    Serve,
    /// Apply pending database migrations and exit.
    Migrate,
    /// Manage users.
    #[command(subcommand)]
    User(UserCommand),
    /// Manage API keys.
    #[command(subcommand)]
    Key(KeyCommand),
}

#[derive(Subcommand, Debug)]
pub enum UserCommand {
    /// Create a user; prints the new user's user_id.
    Add(UserAdd),
}

#[derive(Args, Debug)]
pub struct UserAdd {
    #[arg(long)]
    pub email: String,
    #[arg(long)]
    pub first_name: Option<String>,
    #[arg(long)]
    pub last_name: Option<String>,
    /// Make the user a platform administrator (sees every team).
    #[arg(long)]
    pub admin: bool,
}

#[derive(Subcommand, Debug)]
pub enum KeyCommand {
    /// Create an API key for a user; prints the key alone on one line.
    Create(KeyCreate),
}

#[derive(Args, Debug)]
pub struct KeyCreate {
    #[arg(long)]
    pub email: String,
    #[arg(long, default_value = "cli")]
    pub name: String,
    #[arg(long)]
    pub expires_in_days: Option<i64>,
}

/// Runs a parsed command line; errors are reported by `main` on one line of stderr.
pub async fn run(cli: Cli, config: Config) -> anyhow::Result<()> {
    match cli.command.unwrap_or(Command::Serve) {
        Command::Serve => app::serve(config).await,
        Command::Migrate => {
            let db = open(&config)?;
            eprintln!("applied {} migration(s)", db.migrate()?);
            Ok(())
        }
        Command::User(UserCommand::Add(args)) => {
            let state = state(config)?;
            let user = state
                .auth
                .add_user(NewUserRequest {
                    email: args.email,
                    first_name: args.first_name,
                    last_name: args.last_name,
                    is_admin: args.admin,
                })
                .await
                .map_err(describe)?;
            println!("{}", user.user_id);
            Ok(())
        }
        Command::Key(KeyCommand::Create(args)) => {
            let state = state(config)?;
            let user = state
                .auth
                .find_user_by_email(&args.email)
                .await
                .map_err(describe)?;
            let created = state
                .auth
                .create_api_key(&user, &args.name, args.expires_in_days)
                .await
                .map_err(describe)?;
            println!("{}", created.secret);
            Ok(())
        }
    }
}

fn open(config: &Config) -> anyhow::Result<Database> {
    Ok(Database::connect(&config.database_url, 2)?)
}

/// A migrated database and the services over it, for one-shot commands.
fn state(config: Config) -> anyhow::Result<AppState> {
    let db = open(&config)?;
    db.migrate()?;
    let adapters = Adapters::production(&config, &db)?;
    Ok(AppState::new(config, db, adapters))
}

/// One line a person can act on, instead of a debug dump.
fn describe(e: leadhub_domain::auth::AuthError) -> anyhow::Error {
    use leadhub_domain::auth::AuthError;
    match e {
        AuthError::Invalid(problems) => anyhow::anyhow!(
            "{}",
            problems
                .iter()
                .map(|p| {
                    let field = p
                        .loc
                        .last()
                        .map(|l| serde_json::to_string(l).unwrap_or_default())
                        .unwrap_or_default();
                    format!("{}: {}", field.trim_matches('"').replace('_', "-"), p.msg)
                })
                .collect::<Vec<_>>()
                .join("; ")
        ),
        AuthError::NotFound(thing) => anyhow::anyhow!("{thing} not found"),
        other => anyhow::Error::new(other),
    }
}
