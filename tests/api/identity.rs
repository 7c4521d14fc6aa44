//! Identity: magic-link sign-in, refresh rotation with reuse detection, sign-out, expiry, access
//! tokens on API-key endpoints, and no plain secret in the database.
use chrono::{Duration, Utc};
use diesel::prelude::*;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use leadhub_db::schema::{api_keys, auth_tokens, sign_in_links, team_invites};
use leadhub_domain::mail::Message;
use leadhub_tests::{backend_tests, TestApp};

use crate::teams::{accept_ok, create_team, create_team_id, invite, token_of};

const UNAUTHORIZED: &str = r#"{"detail":"Invalid or expired API key"}"#;

/// GET `path` with a Bearer token; the status and the raw body.
async fn raw_get(app: &TestApp, path: &str, token: &str) -> (StatusCode, String) {
    let response = app
        .client
        .get(app.url(path))
        .bearer_auth(token)
        .send()
        .await
        .unwrap();
    (response.status(), response.text().await.unwrap())
}

async fn assert_401(app: &TestApp, path: &str, token: &str) {
    let (status, body) = raw_get(app, path, token).await;
    assert_eq!(
        (status, body.as_str()),
        (StatusCode::UNAUTHORIZED, UNAUTHORIZED),
        "{path}"
    );
}

/// POST /api/auth/refresh with `token`.
async fn refresh(app: &TestApp, token: &str) -> (StatusCode, Value) {
    let body = json!({ "refresh_token": token });
    app.post_public("/api/auth/refresh", body).await
}

/// POST /api/auth/verify: spends a sign-in link's `token`.
async fn verify(app: &TestApp, token: &str) -> (StatusCode, Value) {
    app.post_public("/api/auth/verify", json!({ "token": token }))
        .await
}

/// POST /api/auth/magic-link, asserting the one answer it ever gives.
pub async fn request_link(app: &TestApp, email: &str) {
    let (status, body) = app
        .post_public("/api/auth/magic-link", json!({ "email": email }))
        .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{body}");
    assert_eq!(body, json!({"detail": "Check your e-mail"}));
    app.mail_settled().await;
}

/// The token of the last sign-in link e-mailed to `email`.
pub fn link_token(app: &TestApp, email: &str) -> String {
    let mail = app.mail.last_to(email).expect("a sign-in e-mail");
    match mail.message {
        Message::SignIn { sign_in_url, .. } => {
            let prefix = format!("{}/sign-in?token=", app.state.config.public_url);
            assert!(sign_in_url.starts_with(&prefix), "{sign_in_url}");
            assert!(mail.text.contains(&sign_in_url), "the link is in the text");
            sign_in_url[prefix.len()..].to_owned()
        }
        other => panic!("not a sign-in e-mail: {other:?}"),
    }
}

/// Magic link + verify: the verify answer.
pub async fn sign_in(app: &TestApp, email: &str) -> Value {
    request_link(app, email).await;
    let token = link_token(app, email);
    let (status, body) = verify(app, &token).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body
}

fn s(v: &Value, field: &str) -> String {
    v[field]
        .as_str()
        .unwrap_or_else(|| panic!("no {field} in {v}"))
        .to_owned()
}

async fn magic_link_sign_in(app: TestApp) {
    let ada = app.user("ada@example.com").await;

    // A known address (any case): 202 and an e-mail with {public_url}/sign-in?token=...
    request_link(&app, "  ADA@example.com ").await;
    assert_eq!(app.mail.sent().len(), 1);
    let token = link_token(&app, "ada@example.com");
    assert!(
        token.starts_with("lhs_") && token.len() >= 4 + 43,
        "{token}"
    );

    // An unknown or malformed address: the same 202, and no e-mail.
    request_link(&app, "nobody@example.com").await;
    request_link(&app, "not-an-address").await;
    assert_eq!(app.mail.sent().len(), 1);
    let (status, body) = app.post_public("/api/auth/magic-link", json!({})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(body["detail"][0]["loc"], json!(["body", "email"]));

    // Verify: a session and the user.
    let (status, signed) = verify(&app, &token).await;
    assert_eq!(status, StatusCode::OK, "{signed}");
    assert!(s(&signed, "access_token").starts_with("lha_"));
    assert!(s(&signed, "refresh_token").starts_with("lhr_"));
    assert_eq!(signed["expires_in"], 3600);
    assert_eq!(signed["token_type"], "bearer");
    assert_eq!(signed["user"]["user_id"], ada.user.user_id.as_str());
    assert_eq!(signed["user"]["email"], "ada@example.com");
    assert_eq!(signed["user"]["is_admin"], false);
    let (status, me) = app.get("/api/auth/me", &s(&signed, "access_token")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(me, signed["user"]);
    let (status, me) = app.get("/api/auth/me", &ada.key).await;
    assert_eq!(status, StatusCode::OK, "an API key works on /me too");
    assert_eq!(me["user_id"], ada.user.user_id.as_str());

    // Single use.
    let (status, body) = verify(&app, &token).await;
    assert_eq!(status, StatusCode::GONE, "{body}");
    assert!(body["detail"].as_str().is_some());
    // An unknown token is gone too (nothing to tell apart).
    let (status, _) = verify(&app, "lhs_nope").await;
    assert_eq!(status, StatusCode::GONE);

    // A GET of the link page never spends it.
    request_link(&app, "ada@example.com").await;
    let fresh = link_token(&app, "ada@example.com");
    let _ = app
        .client
        .get(app.url(&format!("/sign-in?token={fresh}")))
        .send()
        .await
        .unwrap();
    let (status, _) = verify(&app, &fresh).await;
    assert_eq!(
        status,
        StatusCode::OK,
        "prefetching the link did not spend it"
    );

    // An expired link: 410.
    request_link(&app, "ada@example.com").await;
    let old = link_token(&app, "ada@example.com");
    let past = (Utc::now() - Duration::minutes(1)).naive_utc();
    app.write_db(move |conn| {
        diesel::update(sign_in_links::table.filter(sign_in_links::used_at.is_null()))
            .set(sign_in_links::expires_at.eq(past))
            .execute(conn)
    })
    .await;
    let (status, body) = verify(&app, &old).await;
    assert_eq!(status, StatusCode::GONE, "{body}");
}

async fn links_expire_after_fifteen_minutes(app: TestApp) {
    app.user("ada@example.com").await;
    let before = Utc::now().naive_utc();
    request_link(&app, "ada@example.com").await;
    let after = Utc::now().naive_utc();
    let expiry: chrono::NaiveDateTime = app
        .read_db(|conn| conn.first(sign_in_links::table.select(sign_in_links::expires_at)))
        .await;
    assert!(expiry >= before + Duration::minutes(15) - Duration::seconds(1));
    assert!(expiry <= after + Duration::minutes(15) + Duration::seconds(1));
}

async fn refresh_rotates_and_reuse_revokes_the_family(app: TestApp) {
    app.user("ada@example.com").await;
    let first = sign_in(&app, "ada@example.com").await;
    let (a1, r1) = (s(&first, "access_token"), s(&first, "refresh_token"));

    // Refresh: a new pair; the new access token works.
    let (status, second) = refresh(&app, &r1).await;
    assert_eq!(status, StatusCode::OK, "{second}");
    let (a2, r2) = (s(&second, "access_token"), s(&second, "refresh_token"));
    assert_ne!(a2, a1);
    assert_ne!(r2, r1);
    assert_eq!(second["expires_in"], 3600);
    assert_eq!(second["token_type"], "bearer");
    assert_eq!(app.get("/api/auth/me", &a2).await.0, StatusCode::OK);
    let (status, third) = refresh(&app, &r2).await;
    assert_eq!(status, StatusCode::OK, "{third}");
    let (a3, r3) = (s(&third, "access_token"), s(&third, "refresh_token"));
    assert_eq!(app.get("/api/auth/me", &a3).await.0, StatusCode::OK);

    // A second, unrelated session of the same user.
    let other = sign_in(&app, "ada@example.com").await;

    // Reuse of a retired refresh token: 401, and the whole family is revoked.
    let response = app
        .client
        .post(app.url("/api/auth/refresh"))
        .json(&json!({"refresh_token": r1}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(response.text().await.unwrap(), UNAUTHORIZED);
    for access in [&a1, &a2, &a3] {
        assert_401(&app, "/api/auth/me", access).await;
    }
    let (status, _) = refresh(&app, &r3).await;
    assert_eq!(
        status,
        StatusCode::UNAUTHORIZED,
        "the newest refresh token is revoked too"
    );

    // The other session is untouched.
    assert_eq!(
        app.get("/api/auth/me", &s(&other, "access_token")).await.0,
        StatusCode::OK
    );
    let (status, _) = refresh(&app, &s(&other, "refresh_token")).await;
    assert_eq!(status, StatusCode::OK);

    // Garbage and access tokens are not refresh tokens.
    for bad in [
        "lhr_nope".to_owned(),
        "nonsense".to_owned(),
        s(&other, "access_token"),
    ] {
        let (status, body) = refresh(&app, &bad).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{bad}");
        assert_eq!(body, json!({"detail": "Invalid or expired API key"}));
    }
    let (status, _) = app.post_public("/api/auth/refresh", json!({})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
}

async fn logout_and_expiry(app: TestApp) {
    let ada = app.user("ada@example.com").await;
    let session = sign_in(&app, "ada@example.com").await;
    let access = s(&session, "access_token");
    assert_eq!(app.get("/api/auth/me", &access).await.0, StatusCode::OK);

    // Logout revokes the access token and its family.
    let (status, body) = app
        .call(Method::POST, "/api/auth/logout", Some(&access), None)
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_401(&app, "/api/auth/me", &access).await;
    let (status, _) = refresh(&app, &s(&session, "refresh_token")).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    // Logging out with an API key ends no session and keeps the key.
    let (status, _) = app
        .call(Method::POST, "/api/auth/logout", Some(&ada.key), None)
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(app.get("/api/auth/me", &ada.key).await.0, StatusCode::OK);
    let (status, _) = app.call(Method::POST, "/api/auth/logout", None, None).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);

    // An expired access token: exactly the 401 body.
    let session = sign_in(&app, "ada@example.com").await;
    let access = s(&session, "access_token");
    assert_eq!(app.get("/api/auth/me", &access).await.0, StatusCode::OK);
    let past = (Utc::now() - Duration::seconds(1)).naive_utc();
    app.write_db(move |conn| {
        diesel::update(auth_tokens::table.filter(auth_tokens::kind.eq("access")))
            .set(auth_tokens::expires_at.eq(past))
            .execute(conn)
    })
    .await;
    assert_401(&app, "/api/auth/me", &access).await;
    assert_401(&app, "/api/keys", &access).await;
    assert_401(&app, "/api/teams", &access).await;
    // Its refresh token still gives a working pair.
    let (status, renewed) = refresh(&app, &s(&session, "refresh_token")).await;
    assert_eq!(status, StatusCode::OK, "{renewed}");
    assert_eq!(
        app.get("/api/auth/me", &s(&renewed, "access_token"))
            .await
            .0,
        StatusCode::OK
    );

    // An expired refresh token: 401.
    app.write_db(move |conn| {
        diesel::update(auth_tokens::table.filter(auth_tokens::kind.eq("refresh")))
            .set(auth_tokens::expires_at.eq(past))
            .execute(conn)
    })
    .await;
    let (status, body) = refresh(&app, &s(&renewed, "refresh_token")).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(body, json!({"detail": "Invalid or expired API key"}));
}

async fn access_tokens_work_on_api_key_endpoints(app: TestApp) {
    let ada = app.user("ada@example.com").await;
    let session = sign_in(&app, "ada@example.com").await;
    let access = s(&session, "access_token");
    let (status, keys) = app.get("/api/keys", &access).await;
    assert_eq!(status, StatusCode::OK, "{keys}");
    assert_eq!(keys.as_array().unwrap().len(), 1, "ada's own key");
    let (status, created) = app
        .post("/api/keys", &access, json!({"name": "from a session"}))
        .await;
    assert_eq!(status, StatusCode::OK, "{created}");
    let key = s(&created, "key");
    let (_, keys) = app.get("/api/keys", &ada.key).await;
    assert_eq!(keys.as_array().unwrap().len(), 2, "the key is ada's");
    let (status, me) = app.get("/api/auth/me", &key).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(me["user_id"], ada.user.user_id.as_str());
    // And on teams and leads.
    let team = create_team(&app, &access, "Session team").await;
    assert_eq!(team["my_role"], "owner");
    let (status, _) = app.get("/api/v1/leads", &access).await;
    assert_eq!(status, StatusCode::OK);
}

/// Every stored hash is 64 hex characters and neither is nor contains a secret a client saw.
async fn no_plain_secrets_in_the_database(app: TestApp) {
    let ada = app.user("ada@example.com").await;
    let mut secrets = vec![ada.key.clone()];
    let (_, created) = app
        .post("/api/keys", &ada.key, json!({"name": "more"}))
        .await;
    secrets.push(s(&created, "key"));

    // Sessions: sign-in link, verify, refresh.
    request_link(&app, "ada@example.com").await;
    let link = link_token(&app, "ada@example.com");
    secrets.push(link.clone());
    let (_, signed) = verify(&app, &link).await;
    secrets.push(s(&signed, "access_token"));
    secrets.push(s(&signed, "refresh_token"));
    let (_, renewed) = refresh(&app, &s(&signed, "refresh_token")).await;
    secrets.push(s(&renewed, "access_token"));
    secrets.push(s(&renewed, "refresh_token"));
    // A link that stays unspent.
    request_link(&app, "ada@example.com").await;
    secrets.push(link_token(&app, "ada@example.com"));

    // Invites: one accepted (with the session it gives), one pending; tokens from the e-mails.
    let team = create_team_id(&app, &ada.key, "Secretive").await;
    for email in ["sam@example.com", "pat@example.com"] {
        invite(&app, &ada.key, team, email, None).await;
        let mail = app.mail.last_to(email).unwrap();
        let Message::Invite { invite_url, .. } = mail.message else {
            panic!("not an invite");
        };
        secrets.push(token_of(&invite_url));
    }
    let pat_token = secrets.last().unwrap().clone();
    let accepted = accept_ok(
        &app,
        &pat_token,
        json!({"first_name": "P", "last_name": "Q"}),
    )
    .await;
    secrets.push(s(&accepted, "access_token"));
    secrets.push(s(&accepted, "refresh_token"));

    let stored: Vec<(&str, String)> = app
        .read_db(|conn| {
            let mut all = Vec::new();
            for h in conn.load::<_, String>(api_keys::table.select(api_keys::key_hash))? {
                all.push(("api_keys.key_hash", h));
            }
            for h in conn.load::<_, String>(auth_tokens::table.select(auth_tokens::token_hash))? {
                all.push(("auth_tokens.token_hash", h));
            }
            for h in
                conn.load::<_, String>(sign_in_links::table.select(sign_in_links::token_hash))?
            {
                all.push(("sign_in_links.token_hash", h));
            }
            for h in conn.load::<_, String>(team_invites::table.select(team_invites::token_hash))? {
                all.push(("team_invites.token_hash", h));
            }
            Ok::<_, diesel::result::Error>(all)
        })
        .await;
    let count = |table: &str| stored.iter().filter(|(t, _)| *t == table).count();
    assert_eq!(count("api_keys.key_hash"), 2);
    assert_eq!(
        count("auth_tokens.token_hash"),
        6,
        "three sessions of two tokens"
    );
    assert_eq!(count("sign_in_links.token_hash"), 2);
    assert_eq!(count("team_invites.token_hash"), 2);
    assert_eq!(secrets.len(), 12);
    for (column, hash) in &stored {
        assert_eq!(hash.len(), 64, "{column}: {hash}");
        assert!(
            hash.bytes().all(|b| b.is_ascii_hexdigit()),
            "{column}: {hash}"
        );
        for secret in &secrets {
            // The random part alone (without the lhk_/lha_/... prefix) must not show either.
            let body = &secret[4..];
            assert!(
                !hash.contains(body) && hash != secret,
                "{column} holds a secret in clear"
            );
        }
    }
    // And each secret is there as its hash.
    for secret in &secrets {
        let hash = leadhub_domain::secret::hash_secret(secret);
        assert!(
            stored.iter().any(|(_, h)| *h == hash),
            "no hash for a secret of kind {}",
            &secret[..4]
        );
    }
}

backend_tests!(
    magic_link_sign_in,
    links_expire_after_fifteen_minutes,
    refresh_rotates_and_reuse_revokes_the_family,
    logout_and_expiry,
    access_tokens_work_on_api_key_endpoints,
    no_plain_secrets_in_the_database,
);
