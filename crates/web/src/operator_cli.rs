//! The operator's commands over accounts, keys and teams (`leadhub user list`, `user deactivate`,
//! `key list`, `key revoke`, `team list`): plain text in aligned columns on stdout, a header
//! first, so it reads at a terminal and cuts with `awk`; what was done goes to stderr.
use std::sync::Arc;

use chrono::{DateTime, Utc};

use leadhub_domain::operator::{KeyRef, Operator, OperatorError};

use crate::app::AppState;

fn operator(state: &AppState) -> Operator {
    Operator {
        directory: Arc::new(state.db.clone()),
        credentials: Arc::new(state.db.clone()),
    }
}

fn refused(e: OperatorError) -> anyhow::Error {
    anyhow::anyhow!("{e}")
}

/// `2026-11-02T09:00Z` (one word, so `awk` counts columns right), or `-`.
fn at(when: Option<DateTime<Utc>>) -> String {
    when.map(|w| w.format("%Y-%m-%dT%H:%MZ").to_string())
        .unwrap_or_else(|| "-".to_owned())
}

/// Rows padded to their widest cell, two spaces apart; the last column is not padded.
pub fn aligned(header: &[&str], rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let header: Vec<String> = header.iter().map(|h| (*h).to_owned()).collect();
    let mut out = String::new();
    for row in std::iter::once(&header).chain(rows) {
        let last = row.len().saturating_sub(1);
        let line: Vec<String> = row
            .iter()
            .enumerate()
            .map(|(i, cell)| {
                // Tabs and newlines would break the columns.
                let cell = cell.replace(['\t', '\n', '\r'], " ");
                if i == last {
                    cell
                } else {
                    let pad = widths[i].saturating_sub(cell.chars().count());
                    format!("{cell}{}", " ".repeat(pad))
                }
            })
            .collect();
        out.push_str(line.join("  ").trim_end());
        out.push('\n');
    }
    out
}

pub async fn user_list(state: &AppState) -> anyhow::Result<()> {
    let users = operator(state).directory.list_users().await?;
    let rows: Vec<Vec<String>> = users
        .into_iter()
        .map(|u| {
            vec![
                u.user.user_id.clone(),
                u.user.email.clone(),
                if u.user.is_admin { "admin" } else { "user" }.to_owned(),
                match u.deactivated_at {
                    Some(_) => "deactivated",
                    None => "active",
                }
                .to_owned(),
                u.teams.to_string(),
                u.live_keys.to_string(),
                at(Some(u.user.created_at)),
                u.user.display_name(),
            ]
        })
        .collect();
    print!(
        "{}",
        aligned(
            &["USER_ID", "EMAIL", "ROLE", "STATE", "TEAMS", "KEYS", "CREATED", "NAME"],
            &rows
        )
    );
    Ok(())
}

/// Whether `email` names a deactivated account (the operator's whole directory is read: a
/// command's one look, not a request path).
pub async fn is_deactivated(state: &AppState, email: &str) -> anyhow::Result<bool> {
    let email = email.trim().to_lowercase();
    let users = operator(state).directory.list_users().await?;
    Ok(users
        .iter()
        .any(|u| u.user.email == email && u.deactivated_at.is_some()))
}

pub async fn user_deactivate(state: &AppState, email: &str) -> anyhow::Result<()> {
    let revoked = operator(state)
        .deactivate(email, state.clock.now())
        .await
        .map_err(refused)?;
    eprintln!(
        "leadhub: {} deactivated; {revoked} key(s) revoked; their leads and webhooks stay with their teams",
        email.trim().to_lowercase()
    );
    Ok(())
}

pub async fn key_list(state: &AppState, email: &str) -> anyhow::Result<()> {
    let (_, keys) = operator(state).keys_of(email).await.map_err(refused)?;
    let now = state.clock.now();
    let rows: Vec<Vec<String>> = keys
        .into_iter()
        .map(|k| {
            let state = if k.revoked_at.is_some() {
                "revoked"
            } else if k.is_usable_at(now) {
                "live"
            } else {
                "expired"
            };
            vec![
                k.id.to_string(),
                k.prefix.clone(),
                state.to_owned(),
                at(Some(k.created_at)),
                at(k.last_used_at),
                at(k.expires_at),
                k.name.clone(),
            ]
        })
        .collect();
    print!(
        "{}",
        aligned(
            &[
                "ID",
                "PREFIX",
                "STATE",
                "CREATED",
                "LAST_USED",
                "EXPIRES",
                "NAME"
            ],
            &rows
        )
    );
    Ok(())
}

pub async fn key_revoke(state: &AppState, key: &str) -> anyhow::Result<()> {
    let revoked = operator(state)
        .revoke(KeyRef::parse(key), state.clock.now())
        .await
        .map_err(refused)?;
    eprintln!(
        "leadhub: key {} ({}, {:?}) revoked",
        revoked.id, revoked.prefix, revoked.name
    );
    Ok(())
}

pub async fn team_list(state: &AppState) -> anyhow::Result<()> {
    let teams = operator(state).directory.list_teams().await?;
    let rows: Vec<Vec<String>> = teams
        .into_iter()
        .map(|t| {
            vec![
                t.id.to_string(),
                if t.is_active { "active" } else { "deactivated" }.to_owned(),
                t.members.to_string(),
                t.created_by.unwrap_or_else(|| "-".to_owned()),
                at(Some(t.created_at)),
                t.name,
            ]
        })
        .collect();
    print!(
        "{}",
        aligned(
            &["ID", "STATE", "MEMBERS", "CREATED_BY", "CREATED", "NAME"],
            &rows
        )
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::aligned;

    #[test]
    fn columns_line_up_under_their_headers() {
        let text = aligned(
            &["ID", "NAME"],
            &[
                vec!["7".into(), "Acme\tRoofing".into()],
                vec!["1234".into(), "B".into()],
            ],
        );
        assert_eq!(text, "ID    NAME\n7     Acme Roofing\n1234  B\n");
    }
}
