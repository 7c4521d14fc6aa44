//! The web pages over plain HTTP: redirects when signed out, CSRF refusal, link GETs that never
//! spend their token, the transparent refresh, autoescaping, controls by role.
use std::collections::BTreeMap;

use crate::teams::{mailed_invite_url, team_of};
use leadhub_domain::mail::Message;
use leadhub_tests::{backend_tests, TestApp};
use reqwest::header::{HeaderMap, LOCATION, SET_COOKIE};
use reqwest::StatusCode;
use serde_json::json;

/// A tiny browser: its own cookie jar, redirects not followed (the tests look at them).
pub(crate) struct Browser {
    client: reqwest::Client,
    base: String,
    jar: BTreeMap<String, String>,
}

pub(crate) struct Page {
    pub(crate) status: StatusCode,
    pub(crate) headers: HeaderMap,
    pub(crate) body: String,
}

impl Page {
    /// Reads a response whole.
    pub(crate) async fn read(response: reqwest::Response) -> Page {
        let status = response.status();
        let headers = response.headers().clone();
        let body = response.text().await.unwrap();
        Page {
            status,
            headers,
            body,
        }
    }

    /// The body as JSON (a JSON string when it is not JSON).
    pub(crate) fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or_else(|_| self.body.clone().into())
    }

    pub(crate) fn location(&self) -> &str {
        self.headers
            .get(LOCATION)
            .map(|v| v.to_str().unwrap())
            .unwrap_or("")
    }

    /// The value of the first hidden input called `name`.
    pub(crate) fn field(&self, name: &str) -> String {
        self.text_after(&format!("name=\"{name}\" value=\""), '"')
    }

    /// The text between the first `marker` and the next `end`.
    pub(crate) fn text_after(&self, marker: &str, end: char) -> String {
        let start = self
            .body
            .find(marker)
            .unwrap_or_else(|| panic!("no {marker} in:\n{}", self.body))
            + marker.len();
        let stop = self.body[start..].find(end).unwrap() + start;
        self.body[start..stop].to_owned()
    }
}

impl Browser {
    pub(crate) fn new(app: &TestApp) -> Browser {
        Browser {
            client: reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .unwrap(),
            base: app.base_url.clone(),
            jar: BTreeMap::new(),
        }
    }

    /// Sets a cookie (None: removes it), as a page's script would.
    pub(crate) fn set_cookie(&mut self, name: &str, value: Option<&str>) {
        match value {
            Some(value) => self.jar.insert(name.to_owned(), value.to_owned()),
            None => self.jar.remove(name),
        };
    }

    fn cookie_header(&self) -> String {
        self.jar
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join("; ")
    }

    async fn finish(&mut self, response: reqwest::Response) -> Page {
        for value in response.headers().get_all(SET_COOKIE) {
            let text = value.to_str().unwrap();
            let (pair, attributes) = text.split_once(';').unwrap_or((text, ""));
            let (name, value) = pair.split_once('=').unwrap();
            if attributes.contains("Max-Age=0") {
                self.jar.remove(name.trim());
            } else {
                self.jar.insert(name.trim().into(), value.trim().into());
            }
        }
        Page::read(response).await
    }

    pub(crate) async fn get(&mut self, path: &str) -> Page {
        let response = self.send_get(path).await;
        self.finish(response).await
    }

    /// A GET whose answer is a file: its status, headers and bytes.
    pub(crate) async fn download(&mut self, path: &str) -> (StatusCode, HeaderMap, Vec<u8>) {
        let response = self.send_get(path).await;
        let (status, headers) = (response.status(), response.headers().clone());
        (status, headers, response.bytes().await.unwrap().to_vec())
    }

    async fn send_get(&self, path: &str) -> reqwest::Response {
        self.client
            .get(self.url(path))
            .header("cookie", self.cookie_header())
            .send()
            .await
            .unwrap()
    }

    pub(crate) async fn post(&mut self, path: &str, form: &[(&str, &str)]) -> Page {
        let request = self.client.post(self.url(path)).form(form);
        self.send(request).await
    }

    /// Posts a form that answers 303 and follows the redirect; returns both answers.
    pub(crate) async fn post_and_follow(
        &mut self,
        path: &str,
        form: &[(&str, &str)],
    ) -> (Page, Page) {
        let redirect = self.post(path, form).await;
        assert_eq!(redirect.status, StatusCode::SEE_OTHER, "{}", redirect.body);
        let page = self.get(redirect.location()).await;
        (redirect, page)
    }

    /// Posts a `multipart/form-data` form (a file upload).
    pub(crate) async fn post_multipart(
        &mut self,
        path: &str,
        form: reqwest::multipart::Form,
    ) -> Page {
        let request = self.client.post(self.url(path)).multipart(form);
        self.send(request).await
    }

    async fn send(&mut self, request: reqwest::RequestBuilder) -> Page {
        let response = request
            .header("cookie", self.cookie_header())
            .send()
            .await
            .unwrap();
        self.finish(response).await
    }

    /// A path, or a link from an e-mail (whose origin is the configured public URL, not the
    /// test server's port).
    fn url(&self, path: &str) -> String {
        let path = match path.strip_prefix("http://") {
            Some(rest) => &rest[rest.find('/').unwrap_or(rest.len())..],
            None => path,
        };
        format!("{}{path}", self.base)
    }
}

/// `path` as a user with nothing yet sees it: 200, and `empty` said.
/// Asserts that `body` (a page) shows each of `texts`.
pub(crate) fn assert_shows(body: &str, texts: &[&str]) {
    for text in texts {
        assert!(body.contains(text), "{text:?} missing: {body}");
    }
}

/// Opens `path` in `browser`: a page (200) showing each of `texts`; the page.
pub(crate) async fn page_shows(browser: &mut Browser, path: &str, texts: &[&str]) -> Page {
    let page = browser.get(path).await;
    assert_eq!(page.status, StatusCode::OK, "{path}: {}", page.body);
    assert_shows(&page.body, texts);
    page
}

pub(crate) async fn first_look(app: &TestApp, path: &str, empty: &str) -> Page {
    app.user("new@example.com").await;
    let page = sign_in(app, "new@example.com").await.get(path).await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(page.body.contains(empty), "{}", page.body);
    page
}

/// A list page refusing its filters: 422, naming each of `fields`.
pub(crate) async fn assert_filters_refused(b: &mut Browser, path: &str, fields: &[&str]) {
    let bad = b.get(path).await;
    assert_eq!(bad.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(bad.body.contains("These filters cannot be used"));
    for field in fields {
        assert!(bad.body.contains(field), "{field}: {}", bad.body);
    }
}

/// The sign-in link last e-mailed to `email`.
fn sign_in_link(app: &TestApp, email: &str) -> String {
    match app.mail.last_to(email).expect("a sign-in e-mail").message {
        Message::SignIn { sign_in_url, .. } => sign_in_url,
        other => panic!("not a sign-in e-mail: {other:?}"),
    }
}

/// Signs `email` in through the pages, as a person would.
pub(crate) async fn sign_in(app: &TestApp, email: &str) -> Browser {
    let mut b = Browser::new(app);
    let form = b.get("/sign-in").await;
    let csrf = form.field("csrf");
    let sent = b
        .post("/sign-in", &[("csrf", &csrf), ("email", email)])
        .await;
    assert_eq!(sent.status, StatusCode::OK);
    assert!(sent.body.contains("Check your e-mail"));
    app.mail_settled().await;
    let link = b.get(&sign_in_link(app, email)).await;
    assert_eq!(link.status, StatusCode::OK);
    let done = b
        .post(
            "/sign-in/link",
            &[
                ("csrf", &link.field("csrf")),
                ("token", &link.field("token")),
            ],
        )
        .await;
    assert_eq!(done.status, StatusCode::SEE_OTHER, "{}", done.body);
    // Without a `next`, sign-in lands on the dashboard.
    assert_eq!(done.location(), "/");
    b
}

async fn signed_out_pages_redirect_to_sign_in(app: TestApp) {
    let mut b = Browser::new(&app);
    // A page asked for is kept in `next` (form-encoded); the dashboard is where sign-in lands anyway.
    for (path, sign_in) in [
        ("/teams", "/sign-in?next=%2Fteams"),
        ("/api-keys", "/sign-in?next=%2Fapi-keys"),
        ("/teams/1", "/sign-in?next=%2Fteams%2F1"),
        (
            "/api-keys/1/revoke",
            "/sign-in?next=%2Fapi-keys%2F1%2Frevoke",
        ),
        (
            "/leads?q=a&city=Austin",
            "/sign-in?next=%2Fleads%3Fq%3Da%26city%3DAustin",
        ),
        ("/", "/sign-in"),
    ] {
        let page = b.get(path).await;
        assert_eq!(page.status, StatusCode::SEE_OTHER, "{path}");
        assert_eq!(page.location(), sign_in, "{path}");
    }
    let page = b.post("/teams", &[("name", "x"), ("csrf", "x")]).await;
    assert_eq!(page.status, StatusCode::SEE_OTHER);
    assert_eq!(page.location(), "/sign-in");
    // An API key is not a browser session.
    let owner = app.user("owner@example.com").await;
    b.jar.insert("leadhub_session".into(), owner.key.clone());
    assert_eq!(b.get("/teams").await.location(), "/sign-in?next=%2Fteams");
    // Unknown pages are still 404s.
    assert_eq!(b.get("/no-such-page").await.status, StatusCode::NOT_FOUND);
    let sign_in = b.get("/sign-in").await;
    assert_eq!(sign_in.status, StatusCode::OK);
    assert!(sign_in.body.contains("name=\"viewport\""));
}

/// `next` rides from the sign-in form into the e-mailed link and its button, and is where the
/// spent link lands; anything that could leave the origin is dropped at each step (the form, the
/// link, the spend), and sign-in lands on the dashboard.
async fn sign_in_returns_to_a_same_origin_page_only(app: TestApp) {
    let cases = [
        ("/leads/1897", "%2Fleads%2F1897", "/leads/1897"),
        (
            "/leads?q=a&city=Austin",
            "%2Fleads%3Fq%3Da%26city%3DAustin",
            "/leads?q=a&city=Austin",
        ),
        ("//evil.example/x", "%2F%2Fevil.example%2Fx", "/"),
        ("/\\evil.example", "%2F%5Cevil.example", "/"),
        (
            "https://evil.example/",
            "https%3A%2F%2Fevil.example%2F",
            "/",
        ),
        ("javascript:alert(1)", "javascript%3Aalert(1)", "/"),
    ];
    for (i, (next, encoded, lands)) in cases.into_iter().enumerate() {
        let email = format!("ada{i}@example.com");
        app.user(&email).await;
        let safe = lands != "/";
        let mut b = Browser::new(&app);
        let form = b.get(&format!("/sign-in?next={encoded}")).await;
        assert_eq!(form.status, StatusCode::OK);
        assert_eq!(
            form.body.contains("name=\"next\""),
            safe,
            "{next}: {}",
            form.body
        );
        // The unsafe value posted anyway, as a forged form would.
        let csrf = form.field("csrf");
        let sent = b
            .post(
                "/sign-in",
                &[("csrf", &csrf), ("email", &email), ("next", next)],
            )
            .await;
        assert_eq!(sent.status, StatusCode::OK);
        app.mail_settled().await;
        let link = sign_in_link(&app, &email);
        if safe {
            assert!(link.ends_with(&format!("&next={encoded}")), "{link}");
        } else {
            assert!(!link.contains("next="), "{link}");
        }
        let button = b.get(&link).await;
        assert_eq!(button.status, StatusCode::OK);
        let token = button.field("token");
        let done = b
            .post(
                "/sign-in/link",
                &[
                    ("csrf", &button.field("csrf")),
                    ("token", &token),
                    ("next", next),
                ],
            )
            .await;
        assert_eq!(done.status, StatusCode::SEE_OTHER, "{}", done.body);
        assert_eq!(done.location(), lands, "{next}");
    }
}

async fn forms_without_their_csrf_token_are_refused(app: TestApp) {
    let owner = app.user("owner@example.com").await;
    let mut b = sign_in(&app, "owner@example.com").await;
    let teams = b.get("/teams").await;
    let good = teams.field("csrf");

    for form in [
        vec![("name", "Forged")],
        vec![("name", "Forged"), ("csrf", "0123abcd")],
    ] {
        let page = b.post("/teams", &form).await;
        assert_eq!(page.status, StatusCode::FORBIDDEN);
        assert!(page.body.contains("This form could not be accepted"));
        assert!(page.headers["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/html"));
    }
    // Another session's token does not fit this one.
    app.user("other@example.com").await;
    let mut other = sign_in(&app, "other@example.com").await;
    let theirs = other.get("/teams").await.field("csrf");
    assert_ne!(theirs, good);
    let page = b
        .post("/teams", &[("name", "Forged"), ("csrf", &theirs)])
        .await;
    assert_eq!(page.status, StatusCode::FORBIDDEN);
    assert!(app.state.teams.list(&owner.user).await.unwrap().is_empty());

    // Public forms too: no e-mail goes out for a forged sign-in request.
    app.mail.clear();
    let mut stranger = Browser::new(&app);
    let page = stranger
        .post("/sign-in", &[("email", "owner@example.com")])
        .await;
    assert_eq!(page.status, StatusCode::FORBIDDEN);
    app.mail_settled().await;
    assert!(app.mail.sent().is_empty());
    // Signing out is a POST with a token as well; a forged one leaves the session alone.
    let page = b.post("/sign-out", &[]).await;
    assert_eq!(page.status, StatusCode::FORBIDDEN);
    assert_eq!(b.get("/teams").await.status, StatusCode::OK);
    // A cross-site form arrives without the SameSite=Lax cookies: its answer must not clear
    // them either (the browser would apply that Set-Cookie to the person's session).
    let page = stranger.post("/sign-out", &[]).await;
    assert_eq!(page.status, StatusCode::SEE_OTHER);
    assert!(
        page.headers.get_all(SET_COOKIE).iter().next().is_none(),
        "cookies set by a cross-site sign-out: {:?}",
        page.headers
    );

    // With the right token the same form works.
    let page = b.post("/teams", &[("name", "Real"), ("csrf", &good)]).await;
    assert_eq!(page.status, StatusCode::SEE_OTHER);
    assert_eq!(app.state.teams.list(&owner.user).await.unwrap().len(), 1);
}

async fn opening_a_sign_in_link_never_spends_it(app: TestApp) {
    app.user("ada@example.com").await;
    let mut b = Browser::new(&app);
    let csrf = b.get("/sign-in").await.field("csrf");
    b.post("/sign-in", &[("csrf", &csrf), ("email", "ada@example.com")])
        .await;
    app.mail_settled().await;
    let link = sign_in_link(&app, "ada@example.com");
    // A mail scanner and the person both open it: nothing is spent.
    let mut scanner = Browser::new(&app);
    for _ in 0..2 {
        let page = scanner.get(&link).await;
        assert_eq!(page.status, StatusCode::OK);
        assert!(!scanner.jar.contains_key("leadhub_session"));
    }
    let page = b.get(&link).await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(page.body.contains("Continue signing in"));
    let token = page.field("token");
    let form_csrf = page.field("csrf");
    let done = b
        .post("/sign-in/link", &[("csrf", &form_csrf), ("token", &token)])
        .await;
    assert_eq!(done.status, StatusCode::SEE_OTHER);
    let cookie = done
        .headers
        .get_all(SET_COOKIE)
        .iter()
        .map(|v| v.to_str().unwrap().to_owned())
        .find(|c| c.starts_with("leadhub_session="))
        .unwrap();
    assert!(
        cookie.contains("HttpOnly") && cookie.contains("SameSite=Lax") && cookie.contains("Path=/")
    );
    assert!(
        !cookie.contains("Secure"),
        "plain http public URL: {cookie}"
    );
    assert_eq!(b.get("/teams").await.status, StatusCode::OK);

    // Spent: a clear page with the form for a new link.
    let mut again = Browser::new(&app);
    let page = again.get(&link).await;
    let page = again
        .post(
            "/sign-in/link",
            &[("csrf", &page.field("csrf")), ("token", &token)],
        )
        .await;
    assert_eq!(page.status, StatusCode::GONE);
    assert!(page.body.contains("already used or has expired"));
    assert!(page.body.contains("action=\"/sign-in\""));

    // Signing out ends the session: the old cookies no longer work.
    let csrf = b.get("/teams").await.field("csrf");
    let old = b.jar.clone();
    let page = b.post("/sign-out", &[("csrf", &csrf)]).await;
    assert_eq!(page.status, StatusCode::SEE_OTHER);
    assert!(!b.jar.contains_key("leadhub_session"));
    b.jar = old;
    assert_eq!(b.get("/teams").await.location(), "/sign-in?next=%2Fteams");
}

async fn an_expired_access_cookie_is_refreshed_transparently(app: TestApp) {
    app.user("ada@example.com").await;
    let mut b = sign_in(&app, "ada@example.com").await;
    let first_refresh = b.jar["leadhub_refresh"].clone();
    // As if the access token had expired (the browser drops it after its Max-Age).
    b.jar.remove("leadhub_session");
    let page = b.get("/api-keys").await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(b.jar.contains_key("leadhub_session"));
    assert_ne!(b.jar["leadhub_refresh"], first_refresh);
    // Forms keep working across the refresh (the CSRF token is bound to the session, not the token).
    let csrf = page.field("csrf");
    b.jar.insert("leadhub_session".into(), "lha_garbage".into());
    let page = b
        .post("/teams", &[("name", "After refresh"), ("csrf", &csrf)])
        .await;
    assert_eq!(page.status, StatusCode::SEE_OTHER, "{}", page.body);
}

async fn opening_an_invite_never_spends_it(app: TestApp) {
    let owner = app.user("owner@example.com").await;
    let (_, team) = app
        .post("/api/teams", &owner.key, json!({"name": "Roofers"}))
        .await;
    let team_id = team["id"].as_i64().unwrap();
    let (status, invite) = app
        .post(
            &format!("/api/teams/{team_id}/invites"),
            &owner.key,
            json!({"email": "sam@example.com", "role": "admin"}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{invite}");
    let url = &mailed_invite_url(&app.mail.last_to("sam@example.com").unwrap().message);
    let token = url.rsplit('/').next().unwrap();
    let mut b = Browser::new(&app);
    for _ in 0..2 {
        let page = b.get(url).await;
        assert_eq!(page.status, StatusCode::OK);
        assert!(page.body.contains("Roofers") && page.body.contains("admin"));
        assert!(page.body.contains("Test User"), "the inviter's name");
    }
    let (status, _) = app
        .call(
            reqwest::Method::GET,
            &format!("/api/invites/{token}"),
            None,
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "the GETs did not spend it");

    let page = b.get(url).await;
    let csrf = page.field("csrf");
    let missing = b
        .post(&format!("/invite/{token}"), &[("csrf", &csrf)])
        .await;
    assert_eq!(missing.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(missing.body.contains("first name"));
    let sam = [
        ("csrf", &*csrf),
        ("first_name", "Sam"),
        ("last_name", "Smith"),
    ];
    let (done, page) = b.post_and_follow(&format!("/invite/{token}"), &sam).await;
    assert_eq!(done.location(), format!("/teams/{team_id}?done=joined"));
    assert_eq!(page.status, StatusCode::OK);
    assert!(page.body.contains("Sam Smith") && page.body.contains("(you)"));

    let mut late = Browser::new(&app);
    let page = late.get(url).await;
    assert_eq!(page.status, StatusCode::GONE);
    assert!(page.body.contains("already used, revoked or has expired"));
    assert_eq!(
        late.get("/invite/lhi_nonsense").await.status,
        StatusCode::NOT_FOUND
    );
}

async fn team_names_are_escaped(app: TestApp) {
    let owner = app.user("owner@example.com").await;
    let evil = "<script>alert(1)</script>";
    let (_, team) = app
        .post(
            "/api/teams",
            &owner.key,
            json!({"name": evil, "description": "\"><img src=x onerror=alert(2)>"}),
        )
        .await;
    let team_id = team["id"].as_i64().unwrap();
    let mut b = sign_in(&app, "owner@example.com").await;
    for path in [
        "/teams".to_owned(),
        format!("/teams/{team_id}"),
        format!("/teams/{team_id}/deactivate"),
    ] {
        let page = b.get(&path).await;
        assert_eq!(page.status, StatusCode::OK, "{path}");
        assert!(!page.body.contains(evil), "{path} is not escaped");
        assert!(!page.body.contains("<img src=x"), "{path} is not escaped");
        assert!(
            page.body.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
            "{path}"
        );
    }
}

async fn controls_follow_the_permission_table(app: TestApp) {
    let [owner, member] = app.users(["owner", "member"]).await;
    let team_id = team_of(&app, &owner, "Crew", &[(&member, "member")]).await;

    let mut o = sign_in(&app, "owner@example.com").await;
    let page = o.get(&format!("/teams/{team_id}")).await;
    for control in ["/invites\"", "/role\"", "/remove\"", "/deactivate\""] {
        assert!(page.body.contains(control), "owner sees {control}");
    }
    let mut m = sign_in(&app, "member@example.com").await;
    let page = m.get(&format!("/teams/{team_id}")).await;
    assert_eq!(page.status, StatusCode::OK);
    for control in ["/invites\"", "/role\"", "/deactivate\""] {
        assert!(
            !page.body.contains(control),
            "a member does not see {control}"
        );
    }
    assert!(page.body.contains("Leave…"), "a member may leave");
    // The server refuses what the page did not offer.
    let csrf = page.field("csrf");
    let refused = m
        .post(
            &format!("/teams/{team_id}/members/{}/role", owner.user.user_id),
            &[("csrf", &csrf), ("role", "member")],
        )
        .await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN);
    let refused = m
        .post(&format!("/teams/{team_id}/deactivate"), &[("csrf", &csrf)])
        .await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN);
    assert_eq!(
        m.get(&format!("/teams/{team_id}/deactivate")).await.status,
        StatusCode::FORBIDDEN
    );
    // A team one is not in is not found.
    app.user("outsider@example.com").await;
    let mut x = sign_in(&app, "outsider@example.com").await;
    assert_eq!(
        x.get(&format!("/teams/{team_id}")).await.status,
        StatusCode::NOT_FOUND
    );
}

/// The invite takeover (tests/api/takeover.rs) through the pages: the inviter sees every page of the team and
/// never a token; the invitee's account gets no session.
async fn invites_sent_from_the_pages_reach_only_the_mailbox(app: TestApp) {
    let victim = app.admin("root@example.com").await;
    app.user("mallory@example.com").await;
    let mut b = sign_in(&app, "mallory@example.com").await;
    let teams = b.get("/teams").await;
    let created = b
        .post(
            "/teams",
            &[("csrf", &teams.field("csrf")), ("name", "Bait")],
        )
        .await;
    assert_eq!(created.status, StatusCode::SEE_OTHER, "{}", created.body);
    let team_page = created.location().split('?').next().unwrap().to_owned();
    let csrf = b.get(&team_page).await.field("csrf");
    let mut seen = Vec::new();
    for _ in 0..2 {
        let root = [
            ("csrf", &*csrf),
            ("email", "root@example.com"),
            ("role", "admin"),
        ];
        let (sent, page) = b
            .post_and_follow(&format!("{team_page}/invites"), &root)
            .await;
        assert!(page.body.contains("Invite sent."), "{}", page.body);
        seen.push(format!("{:?}{}{}", sent.headers, sent.body, page.body));
    }
    assert!(
        seen.iter().all(|s| !s.contains("lhi_")),
        "a token on a page"
    );
    assert_eq!(crate::takeover::accept_every_token(&app, &seen).await, 0);
    assert_eq!(crate::takeover::sessions_of(&app, victim.user.id).await, 0);
}

backend_tests!(
    invites_sent_from_the_pages_reach_only_the_mailbox,
    signed_out_pages_redirect_to_sign_in,
    sign_in_returns_to_a_same_origin_page_only,
    forms_without_their_csrf_token_are_refused,
    opening_a_sign_in_link_never_spends_it,
    an_expired_access_cookie_is_refreshed_transparently,
    opening_an_invite_never_spends_it,
    team_names_are_escaped,
    controls_follow_the_permission_table,
);
