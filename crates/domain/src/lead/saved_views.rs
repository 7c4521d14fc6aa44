//! A person's saved views: a list of leads with its filters kept under a name ("Storm 2026, no
//! phone"), shown beside the list's own views so a salesperson opens it in one click every
//! morning. The filters are the list's URL query, kept as the pages wrote it and read again as
//! any `/leads` URL is: a view shows nothing its owner could not list by hand, and a filter
//! refused later (a teammate who left) is said as the list says it (docs/working-leads.md).
use std::sync::Arc;

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use crate::clock::Clock;
use crate::error::{FieldError, ServiceError};
use crate::parse::clean_text;
use crate::store::StoreResult;
use crate::user::User;

/// Longest name of a view, in characters.
pub const VIEW_NAME_MAX_CHARS: usize = 60;
/// Longest query of a view, in bytes: every filter of the list with room to spare.
pub const VIEW_QUERY_MAX_BYTES: usize = 2000;
/// Most views one person keeps: a row of links, not a second list to search.
pub const VIEWS_PER_PERSON: usize = 30;

/// A saved view.
#[derive(Debug, Clone, PartialEq)]
pub struct SavedView {
    pub id: i64,
    pub user_id: i64,
    pub name: String,
    /// The list's filters as a URL query (`status=open&tag=storm+2026`), without `?`.
    pub query: String,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait SavedViewRepository: Send + Sync {
    /// The person's views, by name.
    async fn views_of(&self, user_id: i64) -> StoreResult<Vec<SavedView>>;
    /// Saves the view `name` of `user_id` with `query`: a new one, or the one of that name with
    /// its query replaced (its `updated_at` set to `at`).
    async fn save_view(
        &self,
        user_id: i64,
        name: String,
        query: String,
        at: DateTime<Utc>,
    ) -> StoreResult<SavedView>;
    /// Deletes the view `id` when it is `user_id`'s; false when there is none such.
    async fn delete_view(&self, user_id: i64, id: i64) -> StoreResult<bool>;
}

pub struct SavedViews {
    pub views: Arc<dyn SavedViewRepository>,
    pub clock: Arc<dyn Clock>,
}

fn invalid(field: &str, msg: impl Into<String>) -> ServiceError {
    ServiceError::Invalid(vec![FieldError::body(&[field.into()], "value_error", msg)])
}

impl SavedViews {
    /// The person's views, by name.
    pub async fn of(&self, user: &User) -> Result<Vec<SavedView>, ServiceError> {
        Ok(self.views.views_of(user.id).await?)
    }

    /// Saves the filters `query` as the person's view `name` (trimmed, spaces collapsed; 1 to 60
    /// characters); a view of that name already theirs takes the new filters. A list without
    /// filters, a query over 2,000 bytes, or a 31st view is refused.
    pub async fn save(
        &self,
        user: &User,
        name: &str,
        query: &str,
    ) -> Result<SavedView, ServiceError> {
        let name = clean_text(name).ok_or_else(|| invalid("name", "Give the view a name"))?;
        if name.chars().count() > VIEW_NAME_MAX_CHARS {
            return Err(invalid(
                "name",
                format!("A view's name has at most {VIEW_NAME_MAX_CHARS} characters"),
            ));
        }
        let query = query.trim().trim_start_matches('?');
        if query.is_empty() {
            return Err(invalid(
                "query",
                "Filter the list first: a view keeps a list's filters",
            ));
        }
        if query.len() > VIEW_QUERY_MAX_BYTES {
            return Err(invalid("query", "These filters are too long to keep"));
        }
        let kept = self.views.views_of(user.id).await?;
        if kept.len() >= VIEWS_PER_PERSON && !kept.iter().any(|v| v.name == name) {
            return Err(invalid(
                "name",
                format!("You keep {VIEWS_PER_PERSON} views already: delete one first"),
            ));
        }
        let at = self.clock.now();
        Ok(self
            .views
            .save_view(user.id, name, query.to_owned(), at)
            .await?)
    }

    /// Deletes one of the person's views (another's, or none: not found).
    pub async fn delete(&self, user: &User, id: i64) -> Result<(), ServiceError> {
        if self.views.delete_view(user.id, id).await? {
            Ok(())
        } else {
            Err(ServiceError::NotFound("View"))
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::sync::Mutex;

    use super::*;
    use crate::test_support::{clock, now, person};

    fn view(id: i64, name: &str) -> SavedView {
        SavedView {
            id,
            user_id: 3,
            name: name.into(),
            query: "status=open".into(),
            created_at: now(),
            updated_at: now(),
        }
    }

    /// The (name, query) of each save asked for.
    type Saves = Arc<Mutex<Vec<(String, String)>>>;

    /// The service over `kept` views of person 3; the saves it was asked for.
    fn service(kept: Vec<SavedView>) -> (SavedViews, Saves) {
        let saved = Arc::new(Mutex::new(Vec::new()));
        let mut views = MockSavedViewRepository::new();
        views.expect_views_of().returning(move |_| Ok(kept.clone()));
        let log = saved.clone();
        views
            .expect_save_view()
            .returning(move |user_id, name, query, at| {
                log.lock().unwrap().push((name.clone(), query.clone()));
                Ok(SavedView {
                    id: 1,
                    user_id,
                    name,
                    query,
                    created_at: at,
                    updated_at: at,
                })
            });
        views
            .expect_delete_view()
            .returning(|user_id, id| Ok(user_id == 3 && id == 7));
        let service = SavedViews {
            views: Arc::new(views),
            clock: clock(),
        };
        (service, saved)
    }

    #[tokio::test]
    async fn a_view_keeps_a_cleaned_name_and_the_lists_filters() {
        let (views, saved) = service(vec![]);
        let me = person(3, "m");
        let view = views
            .save(
                &me,
                "  Storm   2026,  no phone ",
                "?tag=storm+2026&has_phone=false",
            )
            .await
            .unwrap();
        assert_eq!(view.name, "Storm 2026, no phone");
        assert_eq!(
            saved.lock().unwrap()[0],
            (
                "Storm 2026, no phone".into(),
                "tag=storm+2026&has_phone=false".into()
            )
        );
    }

    #[tokio::test]
    async fn a_view_without_a_name_or_filters_or_past_the_limits_is_refused() {
        let full: Vec<SavedView> = (0..30).map(|i| view(i, &format!("v{i}"))).collect();
        let (views, saved) = service(full);
        let me = person(3, "m");
        for (name, query, field) in [
            (" ", "status=open", "name"),
            (&"n".repeat(61) as &str, "status=open", "name"),
            ("Mine", "", "query"),
            ("Mine", &"q".repeat(2001), "query"),
            ("A 31st", "status=open", "name"),
        ] {
            let Err(ServiceError::Invalid(problems)) = views.save(&me, name, query).await else {
                panic!("{name:?} {query:?} was kept")
            };
            assert_eq!(problems[0].loc.last(), Some(&field.into()), "{problems:?}");
        }
        assert!(saved.lock().unwrap().is_empty());
        // The 30th view saved again under its name takes the new filters.
        views.save(&me, "v4", "status=new").await.unwrap();
        assert_eq!(saved.lock().unwrap().len(), 1);
    }

    #[tokio::test]
    async fn only_ones_own_view_is_deleted() {
        let (views, _) = service(vec![]);
        views.delete(&person(3, "m"), 7).await.unwrap();
        let other = views.delete(&person(4, "o"), 7).await;
        assert!(
            matches!(other, Err(ServiceError::NotFound("View"))),
            "{other:?}"
        );
    }
}
