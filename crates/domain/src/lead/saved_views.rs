//! Saved views: a list of leads with its filters kept under a name ("Storm 2026, no phone"),
//! shown beside the list's own views so a salesperson opens it in one click every morning. A
//! view is its owner's alone, or kept for a team by one of its admins, and then every member
//! sees it ("This week's storm leads" set up once for the sales floor). The filters are the
//! list's URL query, kept as the pages wrote it and read again as any `/leads` URL is: a view
//! shows nothing its visitor could not list by hand, and a filter refused later (a teammate who
//! left) is said as the list says it (docs/working-leads.md).
use std::collections::BTreeSet;
use std::sync::Arc;

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use crate::clock::Clock;
use crate::error::{FieldError, ServiceError};
use crate::parse::clean_text;
use crate::store::StoreResult;
use crate::team::{permits, Actor, TeamAction};
use crate::team_access::{authorize, MembershipRepository};
use crate::user::User;

/// Longest name of a view, in characters.
pub const VIEW_NAME_MAX_CHARS: usize = 60;
/// Longest query of a view, in bytes: every filter of the list with room to spare.
pub const VIEW_QUERY_MAX_BYTES: usize = 2000;
/// Most views one person keeps, and one team: a row of links, not a second list to search.
pub const VIEWS_PER_KEEPER: usize = 30;

/// A saved view.
#[derive(Debug, Clone, PartialEq)]
pub struct SavedView {
    pub id: i64,
    /// Who saved it: the owner of a person's view; the admin who first saved a team's view.
    pub user_id: i64,
    /// The team whose members all see it, or None: `user_id`'s alone.
    pub team_id: Option<i64>,
    pub name: String,
    /// The list's filters as a URL query (`status=open&tag=storm+2026`), without `?`.
    pub query: String,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// A view as one person sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct ListedView {
    pub view: SavedView,
    /// Whether this person may save over it or delete it: their own view, or a view of a team
    /// where the permission table lets them share views.
    pub may_change: bool,
}

#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait SavedViewRepository: Send + Sync {
    /// The views of `user_id` and those kept for the teams `team_ids`, by name.
    async fn views_of(&self, user_id: i64, team_ids: Vec<i64>) -> StoreResult<Vec<SavedView>>;
    async fn find_view(&self, id: i64) -> StoreResult<Option<SavedView>>;
    /// Saves the view `name` kept for `team_id` (None: `user_id`'s own) with `query`: a new one
    /// saved by `user_id`, or the one of that name with its query replaced (its `updated_at` set
    /// to `at`).
    async fn save_view(
        &self,
        user_id: i64,
        team_id: Option<i64>,
        name: String,
        query: String,
        at: DateTime<Utc>,
    ) -> StoreResult<SavedView>;
    /// Deletes the view `id`; false when there is none.
    async fn delete_view(&self, id: i64) -> StoreResult<bool>;
}

pub struct SavedViews {
    pub views: Arc<dyn SavedViewRepository>,
    pub memberships: Arc<dyn MembershipRepository>,
    pub clock: Arc<dyn Clock>,
}

fn invalid(field: &str, msg: impl Into<String>) -> ServiceError {
    ServiceError::Invalid(vec![FieldError::body(&[field.into()], "value_error", msg)])
}

impl SavedViews {
    /// The person's views and those of the teams they are an active member of, by name, each
    /// with whether they may change it.
    pub async fn of(&self, user: &User) -> Result<Vec<ListedView>, ServiceError> {
        // One read of the person's teams with their roles: which views they see, and which
        // of the teams' views they may change.
        let roles = self.memberships.roles_of(user.id).await?;
        let may_share: BTreeSet<i64> = roles
            .iter()
            .filter(|(_, role)| {
                Actor::of(user, Some(*role)).is_some_and(|a| permits(a, TeamAction::ShareViews))
            })
            .map(|(team, _)| *team)
            .collect();
        let teams = roles.into_iter().map(|(team, _)| team).collect();
        let views = self.views.views_of(user.id, teams).await?;
        Ok(views
            .into_iter()
            .map(|view| ListedView {
                may_change: view
                    .team_id
                    .map_or(view.user_id == user.id, |t| may_share.contains(&t)),
                view,
            })
            .collect())
    }

    /// Saves the filters `query` as the view `name` (trimmed, spaces collapsed; 1 to 60
    /// characters), the person's own or, with `team_id`, the team's (a team admin or owner, or
    /// a platform admin); a view of that name kept for the same has its filters replaced. A list
    /// without filters, a query over 2,000 bytes, or a 31st view is refused.
    pub async fn save(
        &self,
        user: &User,
        name: &str,
        query: &str,
        team_id: Option<i64>,
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
        if let Some(team) = team_id {
            authorize(&*self.memberships, user, team, TeamAction::ShareViews).await?;
        }
        let kept = self
            .views
            .views_of(user.id, team_id.into_iter().collect())
            .await?;
        let kept: Vec<&SavedView> = kept.iter().filter(|v| v.team_id == team_id).collect();
        if kept.len() >= VIEWS_PER_KEEPER && !kept.iter().any(|v| v.name == name) {
            let keeper = if team_id.is_some() {
                "The team keeps"
            } else {
                "You keep"
            };
            return Err(invalid(
                "name",
                format!("{keeper} {VIEWS_PER_KEEPER} views already: delete one first"),
            ));
        }
        let at = self.clock.now();
        Ok(self
            .views
            .save_view(user.id, team_id, name, query.to_owned(), at)
            .await?)
    }

    /// Deletes a view: one's own, or a team's where one may share views (a member: forbidden).
    /// Another person's view, or a team's one is not in: not found.
    pub async fn delete(&self, user: &User, id: i64) -> Result<(), ServiceError> {
        let not_found = || ServiceError::NotFound("View");
        let view = self.views.find_view(id).await?.ok_or_else(not_found)?;
        match view.team_id {
            // A team's view: its admins'; to anyone outside the team it is not there at all.
            Some(team) => authorize(&*self.memberships, user, team, TeamAction::ShareViews)
                .await
                .map(drop)
                .map_err(|e| match e {
                    ServiceError::NotFound(_) => not_found(),
                    other => other,
                })?,
            None if view.user_id != user.id => return Err(not_found()),
            None => {}
        }
        if self.views.delete_view(id).await? {
            Ok(())
        } else {
            Err(not_found())
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::sync::Mutex;

    use super::*;
    use crate::team::Role;
    use crate::team_access::{Membership, MockMembershipRepository};
    use crate::test_support::{clock, now, person};

    /// Team 5: person 3 is a member, person 4 an admin; person 6 is in no team.
    const TEAM: i64 = 5;

    fn view(id: i64, user_id: i64, team_id: Option<i64>, name: &str) -> SavedView {
        SavedView {
            id,
            user_id,
            team_id,
            name: name.into(),
            query: "status=open".into(),
            created_at: now(),
            updated_at: now(),
        }
    }

    /// The (team, name, query) of each save asked for, and the ids deleted.
    #[derive(Default)]
    struct Asked {
        saves: Mutex<Vec<(Option<i64>, String, String)>>,
        deleted: Mutex<Vec<i64>>,
    }

    fn memberships() -> MockMembershipRepository {
        let mut memberships = MockMembershipRepository::new();
        memberships.expect_membership().returning(|team, user| {
            let role = match (team, user) {
                (TEAM, 3) => Role::Member,
                (TEAM, 4) => Role::Admin,
                _ => return Ok(None),
            };
            Ok(Some(Membership {
                role,
                team_is_active: true,
            }))
        });
        memberships.expect_roles_of().returning(|user| {
            Ok(match user {
                3 => vec![(TEAM, Role::Member)],
                4 => vec![(TEAM, Role::Admin)],
                _ => vec![],
            })
        });
        memberships
    }

    /// The service over `kept` views (whoever asks, as the store answers only a person's own
    /// and their teams'); what it was asked to save and delete.
    fn service(kept: Vec<SavedView>) -> (SavedViews, Arc<Asked>) {
        let asked = Arc::new(Asked::default());
        let mut views = MockSavedViewRepository::new();
        let all = kept.clone();
        views.expect_views_of().returning(move |user, teams| {
            Ok(all
                .iter()
                .filter(|v| v.team_id.map_or(v.user_id == user, |t| teams.contains(&t)))
                .cloned()
                .collect())
        });
        views
            .expect_find_view()
            .returning(move |id| Ok(kept.iter().find(|v| v.id == id).cloned()));
        let log = asked.clone();
        views
            .expect_save_view()
            .returning(move |user_id, team_id, name, query, at| {
                let saved = (team_id, name.clone(), query.clone());
                log.saves.lock().unwrap().push(saved);
                Ok(SavedView {
                    id: 1,
                    user_id,
                    team_id,
                    name,
                    query,
                    created_at: at,
                    updated_at: at,
                })
            });
        let log = asked.clone();
        views.expect_delete_view().returning(move |id| {
            log.deleted.lock().unwrap().push(id);
            Ok(true)
        });
        let service = SavedViews {
            views: Arc::new(views),
            memberships: Arc::new(memberships()),
            clock: clock(),
        };
        (service, asked)
    }

    #[tokio::test]
    async fn a_view_keeps_a_cleaned_name_and_the_lists_filters() {
        let (views, asked) = service(vec![]);
        let me = person(3, "m");
        let view = views
            .save(
                &me,
                "  Storm   2026,  no phone ",
                "?tag=storm+2026&has_phone=false",
                None,
            )
            .await
            .unwrap();
        assert_eq!(view.name, "Storm 2026, no phone");
        assert_eq!(
            asked.saves.lock().unwrap()[0],
            (
                None,
                "Storm 2026, no phone".into(),
                "tag=storm+2026&has_phone=false".into()
            )
        );
    }

    #[tokio::test]
    async fn a_view_without_a_name_or_filters_or_past_the_limits_is_refused() {
        let full: Vec<SavedView> = (0..30)
            .map(|i| view(i, 3, None, &format!("v{i}")))
            .collect();
        let (views, asked) = service(full);
        let me = person(3, "m");
        for (name, query, field) in [
            (" ", "status=open", "name"),
            (&"n".repeat(61) as &str, "status=open", "name"),
            ("Mine", "", "query"),
            ("Mine", &"q".repeat(2001), "query"),
            ("A 31st", "status=open", "name"),
        ] {
            let Err(ServiceError::Invalid(problems)) = views.save(&me, name, query, None).await
            else {
                panic!("{name:?} {query:?} was kept")
            };
            assert_eq!(problems[0].loc.last(), Some(&field.into()), "{problems:?}");
        }
        assert!(asked.saves.lock().unwrap().is_empty());
        // The 30th view saved again under its name takes the new filters; the person's thirty
        // do not count against the team's.
        views.save(&me, "v4", "status=new", None).await.unwrap();
        views
            .save(&person(4, "a"), "A 31st", "status=new", Some(TEAM))
            .await
            .unwrap();
        assert_eq!(asked.saves.lock().unwrap().len(), 2);
    }

    #[tokio::test]
    async fn a_team_view_is_kept_by_the_teams_admins_alone() {
        let (views, asked) = service(vec![]);
        let saved = views
            .save(&person(4, "a"), "Storm", "tag=storm", Some(TEAM))
            .await
            .unwrap();
        assert_eq!(saved.team_id, Some(TEAM));
        let member = views
            .save(&person(3, "m"), "Storm", "tag=storm", Some(TEAM))
            .await;
        assert!(
            matches!(member, Err(ServiceError::Forbidden(_))),
            "{member:?}"
        );
        let stranger = views
            .save(&person(6, "s"), "Storm", "tag=storm", Some(TEAM))
            .await;
        assert!(
            matches!(stranger, Err(ServiceError::NotFound("Team"))),
            "{stranger:?}"
        );
        assert_eq!(asked.saves.lock().unwrap().len(), 1);
    }

    #[tokio::test]
    async fn every_member_sees_the_teams_views_and_its_admins_change_them() {
        let kept = vec![
            view(1, 3, None, "Mine"),
            view(2, 4, Some(TEAM), "Storm"),
            view(3, 4, None, "The admin's own"),
            view(4, 9, Some(8), "Another team's"),
        ];
        let (views, _) = service(kept);
        let seen = |listed: Vec<ListedView>| -> Vec<(i64, bool)> {
            listed.iter().map(|l| (l.view.id, l.may_change)).collect()
        };
        let member = views.of(&person(3, "m")).await.unwrap();
        assert_eq!(seen(member), [(1, true), (2, false)]);
        let admin = views.of(&person(4, "a")).await.unwrap();
        assert_eq!(seen(admin), [(2, true), (3, true)]);
        assert!(views.of(&person(6, "s")).await.unwrap().is_empty());
    }

    #[tokio::test]
    async fn a_view_is_deleted_by_its_owner_or_its_teams_admin() {
        let kept = vec![view(7, 3, None, "Mine"), view(8, 4, Some(TEAM), "Storm")];
        let (views, asked) = service(kept);
        for (who, id, refusal) in [
            (4, 7, "not found"),
            (6, 8, "not found"),
            (3, 8, "forbidden"),
            (3, 99, "not found"),
        ] {
            let answer = views.delete(&person(who, "p"), id).await;
            match answer {
                Err(ServiceError::NotFound("View")) => assert_eq!(refusal, "not found"),
                Err(ServiceError::Forbidden(_)) => assert_eq!(refusal, "forbidden"),
                other => panic!("person {who} deleting view {id}: {other:?}"),
            }
        }
        assert!(asked.deleted.lock().unwrap().is_empty());
        views.delete(&person(3, "m"), 7).await.unwrap();
        views.delete(&person(4, "a"), 8).await.unwrap();
        assert_eq!(*asked.deleted.lock().unwrap(), [7, 8]);
    }
}
