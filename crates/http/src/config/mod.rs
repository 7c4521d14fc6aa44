//! Typed configuration, read once from the environment (and `.env`) at start-up and passed
//! explicitly from then on. Every error names the variable at fault.
use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;

mod bounds;

use bounds::{retry_scale, whole_number};

#[derive(Debug, thiserror::Error)]
#[error("{variable}: {problem}")]
pub struct ConfigError {
    pub variable: &'static str,
    pub problem: String,
}

fn invalid(variable: &'static str, problem: impl Into<String>) -> ConfigError {
    ConfigError {
        variable,
        problem: problem.into(),
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum LogFormat {
    Text,
    Json,
}

#[derive(Debug, Clone)]
pub struct Config {
    pub database_url: String,
    pub data_dir: PathBuf,
    pub bind: SocketAddr,
    pub public_url: String,
    pub smtp_url: Option<String>,
    pub mail_from: String,
    pub geocoders: Vec<String>,
    pub census_url: String,
    pub nominatim_url: String,
    pub counties_file: Option<PathBuf>,
    pub rate_limit_per_key_hour: u32,
    pub rate_limit_per_ip_minute: u32,
    /// Sign-in and invite e-mails one address may receive per minute and per hour (0: no limit).
    pub mail_per_address_minute: u32,
    pub mail_per_address_hour: u32,
    pub trusted_proxies: Vec<IpAddr>,
    pub workers: usize,
    pub log_filter: String,
    pub log_format: LogFormat,
    /// Largest accepted request body, in bytes.
    pub body_limit: usize,
    pub invite_ttl_days: i64,
    /// How long a claimed job stays a worker's without a heartbeat; after that another
    /// worker (in any process) may take it, as after a crash.
    pub job_lease_secs: u64,
    /// How often an idle worker looks for due jobs, in milliseconds.
    pub job_poll_ms: u64,
    /// `LEADHUB_ENRICHMENT_GIVE_UP_SECS`: how long enrichment retries go on (docs/jobs.md).
    pub enrichment_give_up_secs: u64,
    /// Database connections this process may hold (with N processes on one PostgreSQL server,
    /// N times this must stay under its `max_connections`).
    pub db_pool_size: u32,
    /// Map tiles for the lead page (`https://host/{z}/{x}/{y}.png`); None: no map.
    pub map_tiles: Option<String>,
    /// `LEADHUB_WEBHOOK_ALLOW_HTTP=1`: webhook endpoints may be plain `http://`.
    pub webhook_allow_http: bool,
    /// `LEADHUB_WEBHOOK_ALLOW_PRIVATE=1`: deliveries may go to loopback and private addresses.
    pub webhook_allow_private: bool,
    /// `LEADHUB_WEBHOOK_RETRY_SCALE`: multiplies the retry schedule (tests shrink it; default 1).
    pub webhook_retry_scale: f64,
    /// `LEADHUB_WEBHOOK_ENDPOINTS_PER_TEAM`: the most webhook endpoints a team may have.
    pub webhook_endpoints_per_team: usize,
    /// `LEADHUB_EGRESS_PROXY`: the proxy webhook deliveries and map tiles go through; None:
    /// they go out directly, whatever `HTTP(S)_PROXY` says (`leadhub_webhooks::egress`).
    pub egress_proxy: Option<String>,
    /// `LEADHUB_FOLLOW_UP_DIGEST_HOUR`: the hour of each person's day (UTC's where their browser
    /// never said) from which their e-mail of follow-ups due goes out (default 13); None (`off`):
    /// no such e-mail.
    pub follow_up_digest_hour: Option<u32>,
}

pub const GEOCODER_NAMES: [&str; 4] = ["census", "nominatim", "zip", "none"];

impl Config {
    /// Reads `.env` when present, then the process environment.
    pub fn from_env() -> Result<Config, ConfigError> {
        // A missing .env is normal; a malformed one is worth a warning but not a refusal.
        if let Err(e) = dotenvy::dotenv() {
            if !e.not_found() {
                eprintln!("warning: .env not read: {e}");
            }
        }
        Config::from_vars(&std::env::vars().collect())
    }

    pub fn from_vars(vars: &HashMap<String, String>) -> Result<Config, ConfigError> {
        let get = |name: &str| {
            vars.get(name)
                .map(|v| v.trim().to_owned())
                .filter(|v| !v.is_empty())
        };
        let data_dir = PathBuf::from(get("LEADHUB_DATA_DIR").unwrap_or_else(|| "./data".into()));
        let database_url = match get("DATABASE_URL") {
            Some(url) => {
                let known = ["sqlite://", "postgres://", "postgresql://"];
                if !known.iter().any(|p| url.starts_with(p)) {
                    return Err(invalid(
                        "DATABASE_URL",
                        "must start with sqlite:// or postgres:// (e.g. sqlite://./data/leadhub.db)",
                    ));
                }
                url
            }
            None => format!("sqlite://{}", data_dir.join("leadhub.db").display()),
        };
        let bind_text = get("LEADHUB_BIND").unwrap_or_else(|| "127.0.0.1:8080".into());
        let bind: SocketAddr = bind_text.parse().map_err(|_| {
            invalid(
                "LEADHUB_BIND",
                format!("{bind_text:?} is not an address like 127.0.0.1:8080"),
            )
        })?;
        let public_url = get("LEADHUB_PUBLIC_URL")
            .unwrap_or_else(|| format!("http://{bind}"))
            .trim_end_matches('/')
            .to_owned();
        check_http_url("LEADHUB_PUBLIC_URL", &public_url)?;
        let smtp_url = get("LEADHUB_SMTP_URL");
        if let Some(url) = &smtp_url {
            let Some(rest) = url
                .strip_prefix("smtp://")
                .or_else(|| url.strip_prefix("smtps://"))
            else {
                return Err(invalid(
                    "LEADHUB_SMTP_URL",
                    "must start with smtp:// or smtps://",
                ));
            };
            if rest.is_empty() || rest.starts_with(['/', ':', '?']) {
                return Err(invalid("LEADHUB_SMTP_URL", "has no host"));
            }
        }
        let mail_from =
            get("LEADHUB_MAIL_FROM").unwrap_or_else(|| "leadhub <noreply@localhost>".into());
        // The mail adapter reads the mailbox itself; this catches what is no address at all,
        // before anything is migrated or served.
        if !mail_from.contains('@') {
            return Err(invalid(
                "LEADHUB_MAIL_FROM",
                format!("{mail_from:?} is not an address like leadhub <noreply@example.com>"),
            ));
        }
        let geocoders: Vec<String> = get("LEADHUB_GEOCODER")
            .unwrap_or_else(|| "census,zip".into())
            .split(',')
            .map(|s| s.trim().to_ascii_lowercase())
            .filter(|s| !s.is_empty())
            .collect();
        if geocoders.is_empty() {
            return Err(invalid(
                "LEADHUB_GEOCODER",
                format!(
                    "names no geocoder; use a comma list of {} (none: no geocoding)",
                    GEOCODER_NAMES.join(", ")
                ),
            ));
        }
        if let Some(bad) = geocoders
            .iter()
            .find(|g| !GEOCODER_NAMES.contains(&g.as_str()))
        {
            return Err(invalid(
                "LEADHUB_GEOCODER",
                format!(
                    "unknown geocoder {bad:?}; use a comma list of {}",
                    GEOCODER_NAMES.join(", ")
                ),
            ));
        }
        let census_url = base_url(
            "LEADHUB_CENSUS_URL",
            get("LEADHUB_CENSUS_URL"),
            "https://geocoding.geo.census.gov",
        )?;
        let nominatim_url = base_url(
            "LEADHUB_NOMINATIM_URL",
            get("LEADHUB_NOMINATIM_URL"),
            "https://nominatim.openstreetmap.org",
        )?;
        let counties_file = get("LEADHUB_COUNTIES").map(PathBuf::from);
        let map_tiles = get("LEADHUB_MAP_TILES");
        if let Some(template) = &map_tiles {
            check_http_url("LEADHUB_MAP_TILES", template)?;
            if !["{z}", "{x}", "{y}"].iter().all(|p| template.contains(p)) {
                return Err(invalid(
                    "LEADHUB_MAP_TILES",
                    "must contain {z}, {x} and {y}",
                ));
            }
        }
        let egress_proxy = get("LEADHUB_EGRESS_PROXY");
        let follow_up_digest_hour = match get("LEADHUB_FOLLOW_UP_DIGEST_HOUR") {
            Some(off) if off.eq_ignore_ascii_case("off") => None,
            hour => Some(whole_number("LEADHUB_FOLLOW_UP_DIGEST_HOUR", hour)? as u32),
        };
        if let Some(proxy) = &egress_proxy {
            check_http_url("LEADHUB_EGRESS_PROXY", proxy)?;
            reqwest::Proxy::all(proxy.as_str())
                .map_err(|_| invalid("LEADHUB_EGRESS_PROXY", "is not a proxy URL"))?;
        }
        let db_pool_size = match get("LEADHUB_DB_POOL_SIZE") {
            None if database_url.starts_with("sqlite://") => 8,
            None => 16,
            size => whole_number("LEADHUB_DB_POOL_SIZE", size)?,
        };
        let trusted_proxies = get("LEADHUB_TRUSTED_PROXIES")
            .map(|list| {
                list.split(',')
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(|s| {
                        s.parse::<IpAddr>().map_err(|_| {
                            invalid(
                                "LEADHUB_TRUSTED_PROXIES",
                                format!("{s:?} is not an IP address"),
                            )
                        })
                    })
                    .collect::<Result<Vec<_>, _>>()
            })
            .transpose()?
            .unwrap_or_default();
        let log_format = match get("LEADHUB_LOG_FORMAT").as_deref() {
            None | Some("text") => LogFormat::Text,
            Some("json") => LogFormat::Json,
            Some(other) => {
                return Err(invalid(
                    "LEADHUB_LOG_FORMAT",
                    format!("{other:?} is neither text nor json"),
                ))
            }
        };
        Ok(Config {
            data_dir,
            bind,
            public_url,
            smtp_url,
            mail_from,
            geocoders,
            census_url,
            nominatim_url,
            counties_file,
            rate_limit_per_key_hour: whole_number(
                "LEADHUB_RATE_LIMIT_PER_KEY_HOUR",
                get("LEADHUB_RATE_LIMIT_PER_KEY_HOUR"),
            )? as u32,
            rate_limit_per_ip_minute: whole_number(
                "LEADHUB_RATE_LIMIT_PER_IP_MINUTE",
                get("LEADHUB_RATE_LIMIT_PER_IP_MINUTE"),
            )? as u32,
            mail_per_address_minute: whole_number(
                "LEADHUB_MAIL_PER_ADDRESS_MINUTE",
                get("LEADHUB_MAIL_PER_ADDRESS_MINUTE"),
            )? as u32,
            mail_per_address_hour: whole_number(
                "LEADHUB_MAIL_PER_ADDRESS_HOUR",
                get("LEADHUB_MAIL_PER_ADDRESS_HOUR"),
            )? as u32,
            trusted_proxies,
            workers: whole_number("LEADHUB_WORKERS", get("LEADHUB_WORKERS"))? as usize,
            log_filter: get("RUST_LOG").unwrap_or_else(|| "info".into()),
            log_format,
            body_limit: whole_number("LEADHUB_BODY_LIMIT", get("LEADHUB_BODY_LIMIT"))? as usize,
            invite_ttl_days: whole_number(
                "LEADHUB_INVITE_TTL_DAYS",
                get("LEADHUB_INVITE_TTL_DAYS"),
            )? as i64,
            job_lease_secs: whole_number("LEADHUB_JOB_LEASE_SECS", get("LEADHUB_JOB_LEASE_SECS"))?,
            job_poll_ms: whole_number("LEADHUB_JOB_POLL_MS", get("LEADHUB_JOB_POLL_MS"))?,
            enrichment_give_up_secs: whole_number(
                "LEADHUB_ENRICHMENT_GIVE_UP_SECS",
                get("LEADHUB_ENRICHMENT_GIVE_UP_SECS"),
            )?,
            // Within 1..=1000 (its bound).
            db_pool_size: db_pool_size as u32,
            map_tiles,
            webhook_allow_http: flag("LEADHUB_WEBHOOK_ALLOW_HTTP", get)?,
            webhook_allow_private: flag("LEADHUB_WEBHOOK_ALLOW_PRIVATE", get)?,
            webhook_retry_scale: retry_scale(get("LEADHUB_WEBHOOK_RETRY_SCALE"))?,
            webhook_endpoints_per_team: whole_number(
                "LEADHUB_WEBHOOK_ENDPOINTS_PER_TEAM",
                get("LEADHUB_WEBHOOK_ENDPOINTS_PER_TEAM"),
            )? as usize,
            egress_proxy,
            follow_up_digest_hour,
            database_url,
        })
    }
}

/// `1` or `true` (any case) turns a switch on, `0` or `false` (or unset) leaves it off; any
/// other word is refused rather than read as off.
fn flag(variable: &'static str, get: impl Fn(&str) -> Option<String>) -> Result<bool, ConfigError> {
    match get(variable) {
        None => Ok(false),
        Some(v) if v == "1" || v.eq_ignore_ascii_case("true") => Ok(true),
        Some(v) if v == "0" || v.eq_ignore_ascii_case("false") => Ok(false),
        Some(v) => Err(invalid(variable, format!("{v:?} is neither 1 nor 0"))),
    }
}

fn check_http_url(variable: &'static str, url: &str) -> Result<(), ConfigError> {
    let rest = url
        .strip_prefix("http://")
        .or_else(|| url.strip_prefix("https://"))
        .ok_or_else(|| invalid(variable, "must start with http:// or https://"))?;
    if rest.is_empty() || rest.starts_with('/') {
        return Err(invalid(variable, "has no host"));
    }
    Ok(())
}

/// Scheme and host only: the adapters append the documented paths.
fn base_url(
    variable: &'static str,
    value: Option<String>,
    default: &str,
) -> Result<String, ConfigError> {
    let url = value.unwrap_or_else(|| default.to_owned());
    check_http_url(variable, &url)?;
    Ok(url.trim_end_matches('/').to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(pairs: &[(&str, &str)]) -> HashMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn defaults_need_nothing() {
        let c = Config::from_vars(&HashMap::new()).unwrap();
        assert_eq!(c.database_url, "sqlite://./data/leadhub.db");
        assert_eq!(c.bind.to_string(), "127.0.0.1:8080");
        assert_eq!(c.public_url, "http://127.0.0.1:8080");
        assert_eq!(c.geocoders, vec!["census", "zip"]);
        assert_eq!(c.rate_limit_per_key_hour, 1000);
        assert_eq!(c.rate_limit_per_ip_minute, 100);
        assert_eq!(c.workers, 2);
        assert_eq!(c.body_limit, 8 << 20);
    }

    #[test]
    fn errors_name_the_variable() {
        for (name, value) in [
            ("DATABASE_URL", "mysql://x"),
            ("LEADHUB_BIND", "nowhere"),
            ("LEADHUB_GEOCODER", "census,google"),
            ("LEADHUB_WORKERS", "-1"),
            ("LEADHUB_SMTP_URL", "http://x"),
            ("LEADHUB_SMTP_URL", "smtp://"),
            ("LEADHUB_MAIL_FROM", "not an address"),
            ("LEADHUB_GEOCODER", ","),
            ("LEADHUB_WEBHOOK_ALLOW_HTTP", "yes"),
            ("LEADHUB_WEBHOOK_ALLOW_PRIVATE", "on"),
            ("LEADHUB_TRUSTED_PROXIES", "10.0.0.1,banana"),
            ("LEADHUB_LOG_FORMAT", "xml"),
            ("LEADHUB_CENSUS_URL", "ftp://x"),
            ("LEADHUB_DB_POOL_SIZE", "0"),
            ("LEADHUB_DB_POOL_SIZE", "1001"),
            ("LEADHUB_MAP_TILES", "https://tile.example/{z}/{x}.png"),
            ("LEADHUB_MAP_TILES", "file:///{z}/{x}/{y}"),
        ] {
            let e = Config::from_vars(&vars(&[(name, value)])).unwrap_err();
            assert_eq!(e.variable, name);
            assert!(e.to_string().starts_with(name));
        }
    }

    #[test]
    fn invite_lifetime_is_bounded() {
        let ttl = |value: &str| {
            Config::from_vars(&vars(&[("LEADHUB_INVITE_TTL_DAYS", value)]))
                .map(|c| c.invite_ttl_days)
        };
        assert_eq!(
            Config::from_vars(&HashMap::new()).unwrap().invite_ttl_days,
            7
        );
        assert_eq!(ttl("1").unwrap(), 1);
        assert_eq!(ttl(" 365 ").unwrap(), 365);
        for bad in [
            "0",
            "-1",
            "-30",
            "366",
            "1000000000000",
            "99999999999999999999",
            "7.5",
            "week",
        ] {
            let e = ttl(bad).unwrap_err();
            assert_eq!(e.variable, "LEADHUB_INVITE_TTL_DAYS", "{bad}");
            let message = e.to_string();
            assert!(
                message.starts_with("LEADHUB_INVITE_TTL_DAYS: ")
                    && message.contains("from 1 to 365"),
                "{bad}: {message}"
            );
            assert_eq!(message.lines().count(), 1);
        }
    }

    #[test]
    fn pool_size_follows_the_backend_unless_chosen() {
        let pool = |pairs: &[(&str, &str)]| Config::from_vars(&vars(pairs)).unwrap().db_pool_size;
        let postgres = ("DATABASE_URL", "postgres://db/leadhub");
        assert_eq!(pool(&[]), 8);
        assert_eq!(pool(&[postgres]), 16);
        assert_eq!(pool(&[postgres, ("LEADHUB_DB_POOL_SIZE", "5")]), 5);
    }

    #[test]
    fn data_dir_moves_the_default_database() {
        let c = Config::from_vars(&vars(&[("LEADHUB_DATA_DIR", "/srv/lh")])).unwrap();
        assert_eq!(c.database_url, "sqlite:///srv/lh/leadhub.db");
    }
}
