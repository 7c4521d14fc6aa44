//! Saved views of the leads list (docs/working-leads.md "The pages"): the list's filters kept
//! under a name, shown above the list for that person alone or for everyone in a team, replaced
//! by saving the name again, deleted with their ×.
use reqwest::StatusCode;

use leadhub_tests::{backend_tests, TestApp};

use crate::lead_work::{cast, lead_at, patch};
use crate::lead_work_pages::{post_form, refused};
use crate::pages::{page_shows, sign_in, Browser};

backend_tests!(
    a_person_saves_opens_replaces_and_deletes_views_of_the_list,
    a_team_admin_keeps_a_view_for_everyone_in_the_team,
);

/// The id of the view whose delete button `page` shows first.
fn first_view_id(page: &str) -> String {
    let start = page.find("action=\"/leads/views/").expect("a view") + 21;
    page[start..start + page[start..].find('/').unwrap()].to_owned()
}

/// The id of the view whose delete button is labelled `label` on `page`.
fn view_id(page: &str, label: &str) -> String {
    let end = page.find(&format!("aria-label=\"{label}\"")).expect(label);
    first_view_id(&page[page[..end].rfind("<form").unwrap()..])
}

async fn saved(b: &mut Browser, name: &str, query: &str) -> String {
    saved_for(b, name, query, "").await
}

/// Saves a view for the team `team_id` ("": the person's own); where it lands.
async fn saved_for(b: &mut Browser, name: &str, query: &str, team_id: &str) -> String {
    let form = [("name", name), ("query", query), ("team_id", team_id)];
    let done = post_form(b, "/leads/views", &form).await;
    assert_eq!(done.status, StatusCode::SEE_OTHER, "{}", done.body);
    done.location().to_owned()
}

async fn a_person_saves_opens_replaces_and_deletes_views_of_the_list(app: TestApp) {
    let c = cast(&app).await;
    let hot = lead_at(&app, &c.mia.key, 1, Some(c.a)).await;
    lead_at(&app, &c.mia.key, 2, Some(c.a)).await;
    let (status, body) = patch(&app, hot, &c.mia.key, serde_json::json!({"tags": ["hot"]})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let mut mia = sign_in(&app, "mia@example.com").await;

    // No views yet: no row of them; a filtered list offers to save itself.
    let page = page_shows(&mut mia, "/leads?tag=hot", &["Save this list as a view"]).await;
    assert!(!page.body.contains("id=\"saved-views\""), "{}", page.body);
    let page = mia.get("/leads").await;
    assert!(
        !page.body.contains("Save this list as a view"),
        "{}",
        page.body
    );

    // Saved: the name cleaned, only the list's own filters kept, in the list's order (not the
    // page, nor a word the list does not know); back on the list, the view marked as the one open.
    let to = saved(
        &mut mia,
        "  Hot   ones ",
        "tag=hot&offset=50&bogus=1&status=open",
    )
    .await;
    assert_eq!(to, "/leads?status=open&tag=hot&done=view-saved");
    page_shows(
        &mut mia,
        &to,
        &[
            "View saved: it is among your views above the list.",
            "<a href=\"/leads?status=open&amp;tag=hot\" aria-current=\"page\">Hot ones</a>",
            "1 lead matches these filters",
        ],
    )
    .await;
    // Shown on every list, linking to its filters.
    let page = page_shows(
        &mut mia,
        "/leads",
        &["aria-label=\"Delete the view Hot ones\""],
    )
    .await;
    let id = first_view_id(&page.body);

    // The same name again takes the new filters: still one view.
    saved(&mut mia, "Hot ones", "tag=hot").await;
    let page = page_shows(
        &mut mia,
        "/leads",
        &["<a href=\"/leads?tag=hot\">Hot ones</a>"],
    )
    .await;
    assert_eq!(
        page.body.matches(">Hot ones</a>").count(),
        1,
        "{}",
        page.body
    );
    assert_eq!(first_view_id(&page.body), id);

    // A list without filters, or a view without a name, is not kept.
    let form = [("name", "All"), ("query", "")];
    refused(&mut mia, "/leads/views", &form, "Filter the list first").await;
    let form = [("name", " "), ("query", "status=new")];
    refused(&mut mia, "/leads/views", &form, "Give the view a name").await;

    // Someone else sees none of Mia's views and cannot delete one.
    let mut otto = sign_in(&app, "otto@example.com").await;
    let page = otto.get("/leads").await;
    assert!(!page.body.contains("Hot ones"), "{}", page.body);
    let path = format!("/leads/views/{id}/delete");
    let denied = post_form(&mut otto, &path, &[("back", "")]).await;
    assert_eq!(denied.status, StatusCode::NOT_FOUND, "{}", denied.body);

    // Deleted from its ×, back on the list it was pressed on.
    let done = post_form(&mut mia, &path, &[("back", "tag=hot")]).await;
    assert_eq!(done.location(), "/leads?tag=hot&done=view-deleted");
    let page = page_shows(&mut mia, "/leads", &[]).await;
    assert!(!page.body.contains("id=\"saved-views\""), "{}", page.body);
}

async fn a_team_admin_keeps_a_view_for_everyone_in_the_team(app: TestApp) {
    let c = cast(&app).await;
    let hot = lead_at(&app, &c.mia.key, 1, Some(c.a)).await;
    let (status, body) = patch(&app, hot, &c.mia.key, serde_json::json!({"tags": ["hot"]})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let team_a = c.a.to_string();
    let team_a = team_a.as_str();

    // An admin of team A is offered the team; a member is not.
    let mut adam = sign_in(&app, "adam@example.com").await;
    let choice = format!("<option value=\"{team_a}\">everyone in A</option>");
    page_shows(&mut adam, "/leads?tag=hot", &[choice.as_str()]).await;
    let mut mia = sign_in(&app, "mia@example.com").await;
    let page = page_shows(&mut mia, "/leads?tag=hot", &["Save this list as a view"]).await;
    assert!(!page.body.contains("id=\"view-team\""), "{}", page.body);
    // A platform admin in no team is offered none: only one's own teams' views are shown.
    let mut root = sign_in(&app, "root@example.com").await;
    let page = page_shows(&mut root, "/leads?tag=hot", &["Save this list as a view"]).await;
    assert!(!page.body.contains("id=\"view-team\""), "{}", page.body);

    // Kept for the team, and a view of his own of the same name beside it.
    saved_for(&mut adam, "Hot ones", "tag=hot", team_a).await;
    saved(&mut adam, "Hot ones", "tag=hot&status=open").await;
    let team_label = "Delete the view Hot ones for everyone in A";
    let page = page_shows(
        &mut adam,
        "/leads",
        &[
            "<a href=\"/leads?tag=hot\">Hot ones</a><small class=\"view-team\"",
            "· A</small>",
            "<a href=\"/leads?status=open&amp;tag=hot\">Hot ones</a>",
            "aria-label=\"Delete the view Hot ones\"",
            team_label,
        ],
    )
    .await;
    let id = view_id(&page.body, team_label);
    // Saved again by the team's owner: the same view takes the new filters.
    let mut olive = sign_in(&app, "olive@example.com").await;
    saved_for(&mut olive, "Hot ones", "tag=hot&has_phone=false", team_a).await;
    let page = page_shows(&mut olive, "/leads", &[team_label]).await;
    assert_eq!(view_id(&page.body, team_label), id);

    // Every member sees it, without a ×; a member neither deletes it nor keeps one for the team.
    let page = page_shows(
        &mut mia,
        "/leads",
        &["<a href=\"/leads?has_phone=false&amp;tag=hot\">Hot ones</a>"],
    )
    .await;
    assert!(!page.body.contains(team_label), "{}", page.body);
    assert!(
        !page.body.contains("status=open&amp;tag=hot"),
        "{}",
        page.body
    );
    let path = format!("/leads/views/{id}/delete");
    let denied = post_form(&mut mia, &path, &[("back", "")]).await;
    assert_eq!(denied.status, StatusCode::FORBIDDEN, "{}", denied.body);
    let form = [("name", "Mine"), ("query", "tag=hot"), ("team_id", team_a)];
    let denied = post_form(&mut mia, "/leads/views", &form).await;
    assert_eq!(denied.status, StatusCode::FORBIDDEN, "{}", denied.body);

    // Another team's member sees nothing of it and reaches nothing through the team's id.
    let mut otto = sign_in(&app, "otto@example.com").await;
    let page = otto.get("/leads").await;
    assert!(!page.body.contains("Hot ones"), "{}", page.body);
    let denied = post_form(&mut otto, &path, &[("back", "")]).await;
    assert_eq!(denied.status, StatusCode::NOT_FOUND, "{}", denied.body);
    let form = [
        ("name", "Theirs"),
        ("query", "tag=hot"),
        ("team_id", team_a),
    ];
    let denied = post_form(&mut otto, "/leads/views", &form).await;
    assert_eq!(denied.status, StatusCode::NOT_FOUND, "{}", denied.body);

    // The owner deletes it: gone for everyone; Adam's own view stays.
    let done = post_form(&mut olive, &path, &[("back", "")]).await;
    assert_eq!(done.location(), "/leads?done=view-deleted");
    let page = mia.get("/leads").await;
    assert!(!page.body.contains("Hot ones"), "{}", page.body);
    page_shows(
        &mut adam,
        "/leads",
        &["aria-label=\"Delete the view Hot ones\""],
    )
    .await;
}
