//! The `leadhub` command line. Scripts depend on the output: `user add` prints the user id and
//! `key create` the key, each alone on stdout's last line; everything else goes to stderr.
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use crate::import::{self, ImportKind, ImportSettings};
use leadhub_db::Database;
use leadhub_domain::auth::NewUserRequest;
use leadhub_domain::business::RelationshipType;
use leadhub_domain::import::ImportServices;
use leadhub_domain::jobs::JobStatus;
use leadhub_domain::user::{User, UserRepository};
use leadhub_http::config::Config;

use crate::app::{self, Adapters, AppState};
use crate::operator_cli;

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
    /// Import a CSV file (UTF-8, UTF-16 or Windows-1252) or an Excel workbook (.xlsx, its first
    /// visible sheet), columns named as the API's fields or as people write them; prints a summary.
    #[command(subcommand)]
    Import(ImportCommand),
    /// Background jobs: list dead ones, put them back in the queue.
    #[command(subcommand)]
    Jobs(JobsCommand),
    /// Stored leads.
    #[command(subcommand)]
    Lead(LeadCommand),
    /// Teams.
    #[command(subcommand)]
    Team(TeamCommand),
    /// Copies the SQLite database into FILE (a new file), consistent even while serving;
    /// prints the copy's size in bytes. PostgreSQL: use pg_dump.
    Backup {
        /// Where the copy goes; must not exist.
        file: PathBuf,
    },
    /// Copies this SQLite database (DATABASE_URL) into a new, empty PostgreSQL database, both
    /// migrated first, all or nothing; prints each table and its rows. Stop the server first:
    /// what it writes once the copy has begun stays in SQLite.
    CopyTo {
        /// The PostgreSQL database (`postgres://user@host:5432/name`; the password may come from
        /// PGPASSWORD or ~/.pgpass instead of the URL). It must hold no data.
        postgres_url: String,
    },
}

#[derive(Subcommand, Debug)]
pub enum JobsCommand {
    /// Lists jobs that failed for the last time (id, kind, attempts, last error), one a line.
    Dead {
        #[arg(long, default_value_t = 100)]
        limit: i64,
    },
    /// Puts dead jobs back in the queue with fresh attempts; prints how many.
    Requeue {
        /// A dead job's id; repeat for several.
        #[arg(long = "id")]
        ids: Vec<i64>,
        /// Every dead job.
        #[arg(long, conflicts_with = "ids")]
        all: bool,
    },
}

#[derive(Subcommand, Debug)]
pub enum LeadCommand {
    /// Geocodes and appraises a lead again now; prints the lead's enrichment status.
    Enrich { id: i64 },
}

#[derive(Subcommand, Debug)]
pub enum ImportCommand {
    /// Leads, through the submission pipeline (duplicates merge, as for the API).
    Leads(LeadImport),
    /// Businesses, as `POST /api/v1/lead-sources/import` does.
    Businesses(BusinessImport),
}

#[derive(Args, Debug)]
pub struct ImportTarget {
    /// Import into this team. Without it the rows belong to no team, and every user can see
    /// them (the seed's rule for unassigned leads and businesses).
    #[arg(long, display_order = 0)]
    pub team_id: Option<i64>,
    /// The CSV file (commas, tabs, semicolons or vertical bars) or Excel workbook (.xlsx); its
    /// header row names the fields.
    pub file: PathBuf,
    /// Act as this user (default: the earliest platform administrator).
    #[arg(long)]
    pub email: Option<String>,
    /// The column named HEADER feeds FIELD (empty: nothing), whatever its header says; the
    /// other columns as their headers name them. Repeat for more columns.
    #[arg(long = "column", value_name = "HEADER=FIELD", value_parser = column_choice)]
    pub columns: Vec<(String, String)>,
    /// Rows per batch through the service.
    #[arg(long, default_value_t = import::DEFAULT_CHUNK, hide = true)]
    pub chunk_size: usize,
}

/// `--column HEADER=FIELD`: split at the last `=` (a header may hold one; a field never does).
fn column_choice(text: &str) -> Result<(String, String), String> {
    text.rsplit_once('=')
        .map(|(header, field)| (header.to_owned(), field.to_owned()))
        .ok_or_else(|| "give a column as HEADER=FIELD (FIELD empty to leave it out)".to_owned())
}

#[derive(Args, Debug)]
pub struct LeadImport {
    #[command(flatten)]
    pub target: ImportTarget,
    /// Tag every lead the file creates or merges into (the list it came from). Repeat for more.
    #[arg(long = "tag", value_name = "TAG", value_parser = tag_choice)]
    pub tags: Vec<String>,
    /// The source (lead channel: storm_list, referral) of each row without a source column's
    /// cell, as if the file had that column.
    #[arg(long, value_name = "SOURCE", value_parser = source_choice)]
    pub source: Option<String>,
}

/// `--source SOURCE`: a lead channel, in the form a lead keeps it.
fn source_choice(text: &str) -> Result<String, String> {
    leadhub_domain::import::file_source(text)?.ok_or_else(|| "give a source".to_owned())
}

/// `--tag TAG`: a tag by the leads' rule, in its stored form.
fn tag_choice(text: &str) -> Result<String, String> {
    leadhub_domain::lead::work::parse_tag(text).map_err(|problem| problem.message())
}

#[derive(Args, Debug)]
pub struct BusinessImport {
    #[command(flatten)]
    pub target: ImportTarget,
    /// lead_buyer, lead_source, marketing_partner or prospect.
    #[arg(long, default_value = "prospect", value_parser = RelationshipType::NAMES)]
    pub relationship_type: String,
    /// Import duplicates too (by default they are skipped).
    #[arg(long)]
    pub no_skip_duplicates: bool,
    /// Store industries as given (by default mapped to canonical slugs, or inferred).
    #[arg(long)]
    pub no_auto_categorize: bool,
}

#[derive(Subcommand, Debug)]
pub enum UserCommand {
    /// Create a user; prints the new user's user_id.
    Add(UserAdd),
    /// Every account: id, e-mail, role, state, teams, live keys, created, name.
    List,
    /// Stop an account: no sign-in, key or token of theirs works; their keys are revoked.
    /// Their leads and webhooks stay with their teams.
    Deactivate {
        #[arg(long)]
        email: String,
    },
}

#[derive(Subcommand, Debug)]
pub enum TeamCommand {
    /// Every team: id, state, active members, creator, created, name.
    List,
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
    /// A user's keys, revoked and expired ones included: id, prefix, state, dates, name.
    List {
        #[arg(long)]
        email: String,
    },
    /// Revoke a key, named by its id or the start of the key (its prefix, as `key list` shows).
    Revoke {
        /// The key's id, or its prefix (`lhk_...`).
        key: String,
    },
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
        Command::User(UserCommand::List) => operator_cli::user_list(&state(config)?).await,
        Command::User(UserCommand::Deactivate { email }) => {
            operator_cli::user_deactivate(&state(config)?, &email).await
        }
        Command::Key(KeyCommand::List { email }) => {
            operator_cli::key_list(&state(config)?, &email).await
        }
        Command::Key(KeyCommand::Revoke { key }) => {
            operator_cli::key_revoke(&state(config)?, &key).await
        }
        Command::Team(TeamCommand::List) => operator_cli::team_list(&state(config)?).await,
        Command::Key(KeyCommand::Create(args)) => {
            let state = state(config)?;
            let user = acting_user(&state, &args.email).await?;
            let created = state
                .auth
                .create_api_key(&user, &args.name, args.expires_in_days)
                .await
                .map_err(describe)?;
            println!("{}", created.secret);
            Ok(())
        }
        Command::Jobs(JobsCommand::Dead { limit }) => {
            let state = state(config)?;
            let dead = state.jobs.jobs_with_status(JobStatus::Dead, limit).await?;
            if dead.is_empty() {
                // For the person at the terminal; stdout stays the (empty) list for scripts.
                eprintln!("no dead jobs");
            }
            let rows: Vec<Vec<String>> = dead
                .into_iter()
                .map(|job| {
                    let error = job.last_error.unwrap_or_default();
                    vec![
                        job.id.to_string(),
                        job.kind,
                        job.attempts.to_string(),
                        error,
                    ]
                })
                .collect();
            if !rows.is_empty() {
                print!(
                    "{}",
                    operator_cli::aligned(&["ID", "KIND", "ATTEMPTS", "ERROR"], &rows)
                );
            }
            Ok(())
        }
        Command::Jobs(JobsCommand::Requeue { ids, all }) => {
            if ids.is_empty() && !all {
                anyhow::bail!("name the jobs with --id N (repeatable) or use --all");
            }
            let state = state(config)?;
            let now = state.clock.now();
            let named = ids.len();
            let count = state.jobs.requeue_dead((!all).then_some(ids), now).await?;
            println!("{count}");
            if !all && count < named {
                // A mistyped id must not pass for done.
                let others = named - count;
                let said = format!(
                    "{others} of the {named} ids named no dead job (leadhub jobs dead lists them)"
                );
                if count == 0 {
                    anyhow::bail!(said);
                }
                eprintln!("leadhub: {said}");
            }
            Ok(())
        }
        Command::Backup { file } => {
            let url = config.database_url.clone();
            let target = file.clone();
            let bytes =
                tokio::task::spawn_blocking(move || leadhub_db::backup_sqlite(&url, &target))
                    .await??;
            eprintln!("leadhub: copied the database into {}", file.display());
            println!("{bytes}");
            Ok(())
        }
        Command::CopyTo { postgres_url } => {
            let url = config.database_url.clone();
            let copied = tokio::task::spawn_blocking(move || {
                // A large table takes minutes: the person waiting sees it move.
                let mut said = (String::new(), 0);
                let mut progress = |table: &str, rows: i64| {
                    let step = rows / COPY_PROGRESS_EVERY;
                    if step > 0 && (said.0 != table || said.1 < step) {
                        eprintln!("leadhub: {table}: {rows} rows copied");
                        said = (table.to_owned(), step);
                    }
                };
                leadhub_db::copy_sqlite_to_postgres(&url, &postgres_url, &mut progress)
            })
            .await??;
            for table in &copied {
                println!("{}\t{}", table.name, table.rows);
            }
            let rows: i64 = copied.iter().map(|t| t.rows).sum();
            eprintln!(
                "leadhub: copied {rows} rows of {} tables into PostgreSQL; serve with DATABASE_URL set to it",
                copied.len()
            );
            Ok(())
        }
        Command::Lead(LeadCommand::Enrich { id }) => {
            let state = state(config)?;
            let lead = state
                .submissions
                .enrich_lead_again(id)
                .await
                .map_err(|e| anyhow::anyhow!("{e}"))?;
            println!("{}", lead.enrichment_status.as_str());
            Ok(())
        }
        Command::Import(command) => {
            let (target, kind, tags, source) = match command {
                ImportCommand::Leads(args) => {
                    (args.target, ImportKind::Leads, args.tags, args.source)
                }
                ImportCommand::Businesses(args) => (
                    args.target,
                    ImportKind::Businesses {
                        relationship_type: RelationshipType::parse(&args.relationship_type)
                            .unwrap_or(RelationshipType::Prospect),
                        skip_duplicates: !args.no_skip_duplicates,
                        auto_categorize: !args.no_auto_categorize,
                    },
                    Vec::new(),
                    None,
                ),
            };
            if target.team_id.is_none() {
                eprintln!(
                    "leadhub: no --team-id: the imported rows belong to no team, so every user can see them"
                );
            }
            let state = state(config)?;
            let user = import_user(&state, target.email.as_deref()).await?;
            let settings = ImportSettings {
                file: target.file,
                kind,
                team_id: target.team_id,
                reports_dir: import::reports_dir(&state.config.data_dir),
                chunk: target.chunk_size,
                progress_bar: import::stdout_is_terminal(),
                columns: target.columns,
                tags,
                source,
            };
            let services = ImportServices {
                submissions: state.submissions.clone(),
                businesses: state.businesses.clone(),
                lead_work: state.lead_work.clone(),
                upload_id: None,
            };
            let (summary, report) = import::import_spreadsheet(&services, &user, &settings).await?;
            let seconds = summary.elapsed.as_secs_f64();
            eprintln!(
                "leadhub: {} rows in {seconds:.1} s ({:.0} rows/s)",
                summary.rows,
                summary.rows as f64 / seconds.max(0.001)
            );
            print!("{}", summary.render());
            if let Some(report) = report {
                println!("report: {}", report.display());
            }
            if summary.stopped {
                anyhow::bail!(
                    "stopped when asked, after {} rows of the file: what they stored stays; run the same import again to go on (the rows stored are skipped as duplicates)",
                    summary.rows
                );
            }
            Ok(())
        }
    }
}

/// The active account of `email`; a deactivated one is named as such, not as unknown.
async fn acting_user(state: &AppState, email: &str) -> anyhow::Result<User> {
    use leadhub_domain::auth::AuthError;
    match state.auth.find_user_by_email(email).await {
        Err(AuthError::NotFound(_)) if operator_cli::is_deactivated(state, email).await? => {
            anyhow::bail!(
                "{} is deactivated: it can no longer act (leadhub user list shows it)",
                email.trim().to_lowercase()
            )
        }
        found => found.map_err(describe),
    }
}

/// Who an import acts as: `--email`, else the earliest platform administrator.
async fn import_user(state: &AppState, email: Option<&str>) -> anyhow::Result<User> {
    match email {
        Some(email) => acting_user(state, email).await,
        None => UserRepository::first_admin(&state.db)
            .await
            .map_err(|e| anyhow::anyhow!("{e}"))?
            .ok_or_else(|| {
                anyhow::anyhow!(
                    "no platform administrator to import as: pass --email, or create one with `leadhub user add --email E --admin`"
                )
            }),
    }
}

/// `copy-to` says how far a table has come each time this many more of its rows are written.
const COPY_PROGRESS_EVERY: i64 = 100_000;

fn open(config: &Config) -> anyhow::Result<Database> {
    Ok(Database::connect(&config.database_url, 2)?)
}

/// A migrated database and the services over it, for one-shot commands.
fn state(config: Config) -> anyhow::Result<AppState> {
    let db = open(&config)?;
    db.migrate()?;
    let adapters = Adapters::production(&config, &db)?;
    Ok(app::app_state(config, db, adapters))
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
