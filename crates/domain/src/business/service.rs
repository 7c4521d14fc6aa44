//! `BusinessService`: imports, queries and changes businesses, with the visibility rules of leads.
use std::sync::Arc;

use crate::business::model::{
    element_problems, Business, BusinessFields, NewBusiness, RelationshipType,
};
use crate::business::repository::{
    BusinessFilter, BusinessImport, BusinessPatch, BusinessRepository, BusinessStatistics,
    ImportedBusiness,
};
use crate::clock::Clock;
use crate::error::ServiceError;
use crate::team_access::{may_add_to_team, may_see_team, visible_teams, MembershipRepository};
use crate::user::User;

pub type BusinessError = ServiceError;

/// One element of an import: its typed fields, or why it could not even be typed (a string
/// where a number belongs, ...). Either way a bad element is reported, not fatal.
pub type ImportElement = Result<BusinessFields, String>;

#[derive(Debug, Clone, PartialEq)]
pub struct ImportRequest {
    pub elements: Vec<ImportElement>,
    pub relationship_type: RelationshipType,
    pub skip_duplicates: bool,
    pub auto_categorize: bool,
    pub team_id: Option<i64>,
}

/// A rejected element: its zero-based index and every reason, for a person.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ElementError {
    pub index: usize,
    pub detail: String,
}

/// What became of an import, by element index.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ImportOutcome {
    /// (index, new business id)
    pub imported: Vec<(usize, i64)>,
    /// (index, id of the stored business it duplicates)
    pub skipped: Vec<(usize, i64)>,
    pub errors: Vec<ElementError>,
}

/// Built with a struct literal from its ports: it holds them and nothing else.
pub struct BusinessService {
    pub businesses: Arc<dyn BusinessRepository>,
    pub memberships: Arc<dyn MembershipRepository>,
    pub clock: Arc<dyn Clock>,
}

impl BusinessService {
    /// Imports the good elements, reports the bad ones by index. A `team_id` the caller may not
    /// add to is a 403 for the whole import.
    pub async fn import(
        &self,
        user: &User,
        request: ImportRequest,
    ) -> Result<ImportOutcome, BusinessError> {
        if let Some(team_id) = request.team_id {
            may_add_to_team(self.memberships.as_ref(), user, team_id)
                .await?
                .map_err(|reason| BusinessError::Forbidden(reason.to_owned()))?;
        }
        let mut outcome = ImportOutcome::default();
        let mut indexes = Vec::new();
        let mut businesses = Vec::new();
        for (index, element) in request.elements.into_iter().enumerate() {
            let checked = element.and_then(|fields| {
                let problems = element_problems(&fields);
                if problems.is_empty() {
                    NewBusiness::from_fields(&fields, request.auto_categorize)
                        .ok_or_else(|| "invalid business".to_owned())
                } else {
                    Err(problems.join("; "))
                }
            });
            match checked {
                Ok(b) => {
                    indexes.push(index);
                    businesses.push(b);
                }
                Err(detail) => outcome.errors.push(ElementError { index, detail }),
            }
        }
        if businesses.is_empty() {
            return Ok(outcome);
        }
        let stored = self
            .businesses
            .import_businesses(BusinessImport {
                team_id: request.team_id,
                user_id: user.id,
                relationship_type: request.relationship_type,
                skip_duplicates: request.skip_duplicates,
                businesses,
                now: self.clock.now(),
            })
            .await?;
        for (index, result) in indexes.into_iter().zip(stored) {
            match result {
                ImportedBusiness::Created(id) => outcome.imported.push((index, id)),
                ImportedBusiness::Duplicate(id) => outcome.skipped.push((index, id)),
            }
        }
        Ok(outcome)
    }

    /// Whether `user` may see a business of `team_id`: unassigned ones everyone, a team's its
    /// members (also after the team was deactivated) and platform admins.
    async fn may_see(&self, user: &User, team_id: Option<i64>) -> Result<bool, BusinessError> {
        match team_id {
            None => Ok(true),
            Some(team) => Ok(may_see_team(self.memberships.as_ref(), user, team).await?),
        }
    }

    pub async fn business(&self, user: &User, id: i64) -> Result<Business, BusinessError> {
        let found = self
            .businesses
            .find_business(id)
            .await?
            .ok_or(BusinessError::NotFound("Business"))?;
        if self.may_see(user, found.team_id).await? {
            Ok(found)
        } else {
            Err(BusinessError::NotFound("Business"))
        }
    }

    async fn visible(
        &self,
        user: &User,
        mut filter: BusinessFilter,
    ) -> Result<BusinessFilter, BusinessError> {
        filter.visible_teams = visible_teams(self.memberships.as_ref(), user).await?;
        Ok(filter)
    }

    /// The businesses the user may see, filtered, newest first. A `team_id` filter for a team the
    /// user is not in finds nothing (as for leads: no existence leak).
    pub async fn businesses(
        &self,
        user: &User,
        filter: BusinessFilter,
        limit: i64,
        offset: i64,
    ) -> Result<(Vec<Business>, i64), BusinessError> {
        let filter = self.visible(user, filter).await?;
        Ok(self
            .businesses
            .list_businesses(filter, limit, offset)
            .await?)
    }

    /// Whoever may see a business may change it: any field an import takes, name included.
    pub async fn update(
        &self,
        user: &User,
        id: i64,
        patch: BusinessPatch,
    ) -> Result<Business, BusinessError> {
        self.business(user, id).await?;
        let problems = patch.problems();
        if !problems.is_empty() {
            return Err(BusinessError::Invalid(problems));
        }
        self.businesses
            .update_business(id, patch, self.clock.now())
            .await?
            .ok_or(BusinessError::NotFound("Business"))
    }

    /// Counts over the businesses the user may see (narrowed by `filter`).
    pub async fn statistics(
        &self,
        user: &User,
        filter: BusinessFilter,
    ) -> Result<BusinessStatistics, BusinessError> {
        let filter = self.visible(user, filter).await?;
        Ok(self.businesses.business_statistics(filter).await?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::business::repository::MockBusinessRepository;
    use crate::clock::SystemClock;
    use crate::team_access::MockMembershipRepository;
    use crate::test_support::roster_memberships;

    fn user(is_admin: bool) -> User {
        User {
            id: 7,
            user_id: "usr_x".into(),
            email: "u@example.com".into(),
            first_name: None,
            last_name: None,
            is_admin,
            created_at: chrono::Utc::now(),
            follow_up_digest: true,
            utc_offset: None,
        }
    }

    fn named(name: &str) -> ImportElement {
        Ok(BusinessFields {
            name: Some(name.into()),
            ..BusinessFields::default()
        })
    }

    fn request(elements: Vec<ImportElement>, team_id: Option<i64>) -> ImportRequest {
        ImportRequest {
            elements,
            relationship_type: RelationshipType::Prospect,
            skip_duplicates: true,
            auto_categorize: true,
            team_id,
        }
    }

    #[tokio::test]
    async fn bad_elements_are_reported_by_index_and_the_rest_imported() {
        let mut repo = MockBusinessRepository::new();
        repo.expect_import_businesses()
            .withf(|i| {
                i.businesses.len() == 2 && i.businesses[1].industry.as_deref() == Some("roofing")
            })
            .returning(|_| {
                Ok(vec![
                    ImportedBusiness::Created(10),
                    ImportedBusiness::Duplicate(3),
                ])
            });
        let service = BusinessService {
            businesses: Arc::new(repo),
            memberships: Arc::new(MockMembershipRepository::new()),
            clock: Arc::new(SystemClock),
        };
        let outcome = service
            .import(
                &user(false),
                request(
                    vec![
                        named("Acme"),
                        Ok(BusinessFields::default()),
                        Err("rating: Input should be a valid number".into()),
                        named("Top Roofing"),
                    ],
                    None,
                ),
            )
            .await
            .unwrap();
        assert_eq!(outcome.imported, vec![(0, 10)]);
        assert_eq!(outcome.skipped, vec![(3, 3)]);
        assert_eq!(
            outcome.errors.iter().map(|e| e.index).collect::<Vec<_>>(),
            vec![1, 2]
        );
    }

    #[tokio::test]
    async fn a_foreign_or_inactive_team_is_forbidden() {
        let memberships =
            roster_memberships(vec![(2, user(false).id, crate::team::Role::Member, false)]);
        let service = BusinessService {
            businesses: Arc::new(MockBusinessRepository::new()),
            memberships: Arc::new(memberships),
            clock: Arc::new(SystemClock),
        };
        for (team, reason) in [(1, "Not a member of this team"), (2, "Team is inactive")] {
            match service
                .import(&user(false), request(vec![named("Acme")], Some(team)))
                .await
            {
                Err(BusinessError::Forbidden(r)) => assert_eq!(r, reason),
                other => panic!("{other:?}"),
            }
        }
    }
}
