//! `TeamService`: every team, member and invite operation, each checked against the one
//! permission table (`permits`). A team the caller may not see is "not found", never "forbidden".
use std::sync::Arc;

use chrono::Duration;

use crate::clock::Clock;
use crate::error::{FieldError, LocPart};
use crate::identity::IdentityProvider;
use crate::mail::{Mailer, Message};
use crate::mail_throttle::{MailAdmission, MailThrottle};
use crate::parse::{clean_text, normalize_email};
use crate::secret::{hash_secret, TokenGenerator, INVITE_TOKEN_PREFIX};
use crate::session::Session;
use crate::store::store_errors_are_unexpected;
use crate::team::model::{
    permit, Actor, Invite, InviteDetails, Member, MembershipSummary, Role, Team, TeamAction,
    TeamSummary,
};
use crate::team::repository::{AcceptOutcome, NewInvite, TeamRepository};
use crate::team_access::{actor_on, visible_teams, MembershipRepository};
use crate::user::{NewUser, User, UserRepository};

#[derive(Debug, thiserror::Error)]
pub enum TeamError {
    #[error("{0} not found")]
    NotFound(&'static str),
    #[error("forbidden: {0}")]
    Forbidden(String),
    #[error("conflict: {0}")]
    Conflict(String),
    #[error("gone: {0}")]
    Gone(String),
    #[error("invalid input")]
    Invalid(Vec<FieldError>),
    /// The invitee's address received its quota of e-mails; retry after these seconds.
    #[error("too many e-mails to this address")]
    TooManyEmails(u64),
    #[error(transparent)]
    Unexpected(anyhow::Error),
}

store_errors_are_unexpected!(TeamError);

impl From<crate::auth::AuthError> for TeamError {
    fn from(e: crate::auth::AuthError) -> Self {
        TeamError::Unexpected(anyhow::anyhow!(e.to_string()))
    }
}

const INACTIVE: &str = "Team is inactive";
const GONE: &str = "This invite was already used, revoked or has expired";

/// A new invite. Its link went to the invitee's mailbox and nowhere else: whoever holds the
/// token may accept it as the invitee, so it never reaches the inviter.
#[derive(Debug, Clone, PartialEq)]
pub struct CreatedInvite {
    pub invite: Invite,
    /// Whether the mailer took the e-mail; when not, re-inviting mails a new link.
    pub email_sent: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct AcceptedInvite {
    pub team_id: i64,
    pub team_name: String,
    pub user: User,
    pub session: Session,
}

/// Built with a struct literal from its ports: it holds them and nothing else.
pub struct TeamService {
    pub teams: Arc<dyn TeamRepository>,
    pub memberships: Arc<dyn MembershipRepository>,
    pub users: Arc<dyn UserRepository>,
    pub identity: Arc<dyn IdentityProvider>,
    pub mailer: Arc<dyn Mailer>,
    pub clock: Arc<dyn Clock>,
    pub tokens: Arc<dyn TokenGenerator>,
    pub public_url: String,
    pub invite_ttl: Duration,
    /// Bounds the invite e-mails one address receives; beyond it an invite is refused
    /// (`TooManyEmails`) before anything changes, so the pending invite's link keeps working.
    pub mail_throttle: Option<Arc<MailThrottle>>,
}

impl TeamService {
    /// The team and how the user stands to it; "not found" when the user may not see it.
    async fn actor(&self, user: &User, team_id: i64) -> Result<(Team, Actor), TeamError> {
        let team = self
            .teams
            .find_team(team_id)
            .await?
            .ok_or(TeamError::NotFound("Team"))?;
        match actor_on(&*self.memberships, user, team_id).await? {
            Some(actor) => Ok((team, actor)),
            None => Err(TeamError::NotFound("Team")),
        }
    }

    async fn authorize(
        &self,
        user: &User,
        team_id: i64,
        action: TeamAction,
    ) -> Result<(Team, Actor), TeamError> {
        let (team, actor) = self.actor(user, team_id).await?;
        permit(actor, action).map_err(|reason| TeamError::Forbidden(reason.into()))?;
        Ok((team, actor))
    }

    async fn summary(&self, user: &User, team_id: i64) -> Result<TeamSummary, TeamError> {
        self.teams
            .team_summaries(Some(vec![team_id]), user.id)
            .await?
            .pop()
            .ok_or(TeamError::NotFound("Team"))
    }

    pub async fn list(&self, user: &User) -> Result<Vec<TeamSummary>, TeamError> {
        let only = visible_teams(self.memberships.as_ref(), user).await?;
        Ok(self.teams.team_summaries(only, user.id).await?)
    }

    pub async fn create(
        &self,
        user: &User,
        name: &str,
        description: Option<&str>,
    ) -> Result<TeamSummary, TeamError> {
        let name = clean_text(name).unwrap_or_default();
        let team = self
            .teams
            .create_team(
                name,
                description.and_then(clean_text),
                user.id,
                self.clock.now(),
            )
            .await?;
        self.summary(user, team.id).await
    }

    pub async fn get(&self, user: &User, team_id: i64) -> Result<TeamSummary, TeamError> {
        self.authorize(user, team_id, TeamAction::View).await?;
        self.summary(user, team_id).await
    }

    pub async fn update(
        &self,
        user: &User,
        team_id: i64,
        name: Option<&str>,
        description: Option<Option<&str>>,
    ) -> Result<TeamSummary, TeamError> {
        if name.is_none() && description.is_none() {
            return Err(TeamError::Invalid(vec![FieldError::nothing_to_change()]));
        }
        self.authorize(user, team_id, TeamAction::Update).await?;
        let description = description.map(|d| d.and_then(clean_text));
        self.teams
            .update_team(
                team_id,
                name.and_then(clean_text),
                description,
                self.clock.now(),
            )
            .await?;
        self.summary(user, team_id).await
    }

    /// Deactivates the team; nothing is deleted.
    pub async fn deactivate(&self, user: &User, team_id: i64) -> Result<TeamSummary, TeamError> {
        self.authorize(user, team_id, TeamAction::Deactivate)
            .await?;
        self.teams
            .deactivate_team(team_id, self.clock.now())
            .await?;
        self.summary(user, team_id).await
    }

    pub async fn members(&self, user: &User, team_id: i64) -> Result<Vec<Member>, TeamError> {
        self.authorize(user, team_id, TeamAction::View).await?;
        Ok(self.teams.members(team_id).await?)
    }

    async fn member(&self, team_id: i64, member_user_id: &str) -> Result<Member, TeamError> {
        self.teams
            .members(team_id)
            .await?
            .into_iter()
            .find(|m| m.user_id == member_user_id)
            .ok_or(TeamError::NotFound("Member"))
    }

    pub async fn change_role(
        &self,
        user: &User,
        team_id: i64,
        member_user_id: &str,
        role: Role,
    ) -> Result<Member, TeamError> {
        self.authorize(user, team_id, TeamAction::ChangeRole)
            .await?;
        let member = self.member(team_id, member_user_id).await?;
        if member.role == Role::Owner {
            return Err(TeamError::Forbidden(
                "The owner's role cannot change".into(),
            ));
        }
        if role == Role::Owner {
            return Err(TeamError::Forbidden(
                "Ownership cannot be granted by a role change".into(),
            ));
        }
        self.teams
            .set_member_role(team_id, member.user_internal_id, role)
            .await?;
        self.member(team_id, member_user_id).await
    }

    /// Owners and admins remove members; anyone may leave. The owner stays.
    pub async fn remove_member(
        &self,
        user: &User,
        team_id: i64,
        member_user_id: &str,
    ) -> Result<(), TeamError> {
        let (_, actor) = self.actor(user, team_id).await?;
        let member = self.member(team_id, member_user_id).await?;
        let leaving = member.user_internal_id == user.id;
        if !leaving {
            permit(actor, TeamAction::RemoveMember)
                .map_err(|reason| TeamError::Forbidden(reason.into()))?;
        }
        if member.role == Role::Owner {
            return Err(TeamError::Forbidden(
                "The team owner cannot be removed".into(),
            ));
        }
        Ok(self
            .teams
            .remove_member(team_id, member.user_internal_id)
            .await?)
    }

    /// Owners and admins choose who takes the team's new leads in turn (`team::turns`); a
    /// member may take themself out, not put themself in. Only an active member takes them.
    pub async fn set_takes_new_leads(
        &self,
        user: &User,
        team_id: i64,
        member_user_id: &str,
        takes: bool,
    ) -> Result<Member, TeamError> {
        let (_, actor) = self.actor(user, team_id).await?;
        let member = self.member(team_id, member_user_id).await?;
        let stepping_out = member.user_internal_id == user.id && !takes;
        if !stepping_out {
            permit(actor, TeamAction::DealNewLeads)
                .map_err(|reason| TeamError::Forbidden(reason.into()))?;
        }
        if takes && !member.is_active {
            return Err(TeamError::Conflict(
                "An inactive member takes no new leads".into(),
            ));
        }
        self.teams
            .set_takes_new_leads(team_id, member.user_internal_id, takes)
            .await?;
        self.member(team_id, member_user_id).await
    }

    pub async fn memberships(&self, user: &User) -> Result<Vec<MembershipSummary>, TeamError> {
        Ok(self.teams.memberships_of(user.id).await?)
    }

    /// The people `user` works with: the active members of the user's active teams (the user
    /// too), each once, by name. Whom a lead list is filtered by, and leads are given to, on
    /// the pages; giving a lead to one still takes a member of that lead's team.
    pub async fn teammates(&self, user: &User) -> Result<Vec<Member>, TeamError> {
        let mut people: Vec<Member> = Vec::new();
        for team in self.teams.memberships_of(user.id).await? {
            if !team.is_active {
                continue;
            }
            for member in self.teams.members(team.team_id).await? {
                if member.is_active && !people.iter().any(|p| p.user_id == member.user_id) {
                    people.push(member);
                }
            }
        }
        people.sort_by_cached_key(|m| (m.user_name.to_lowercase(), m.user_email.clone()));
        Ok(people)
    }

    pub async fn invite(
        &self,
        user: &User,
        team_id: i64,
        email: &str,
        role: Role,
    ) -> Result<CreatedInvite, TeamError> {
        let (team, _) = self.authorize(user, team_id, TeamAction::Invite).await?;
        if !team.is_active {
            return Err(TeamError::Forbidden(INACTIVE.into()));
        }
        let email = normalize_email(email).ok_or_else(|| {
            TeamError::Invalid(vec![FieldError::body(
                &[LocPart::from("email")],
                "value_error",
                "value is not a valid email address",
            )])
        })?;
        if role == Role::Owner {
            return Err(TeamError::Invalid(vec![FieldError::body(
                &[LocPart::from("role")],
                "enum",
                "Input should be 'admin' or 'member'",
            )]));
        }
        if self
            .teams
            .members(team_id)
            .await?
            .iter()
            .any(|m| m.user_email == email)
        {
            return Err(TeamError::Conflict(format!(
                "{email} is already a member of this team"
            )));
        }
        if let Some(throttle) = &self.mail_throttle {
            if let MailAdmission::Wait(seconds) = throttle.admit(&email).await? {
                return Err(TeamError::TooManyEmails(seconds));
            }
        }
        let token = self.tokens.secret(INVITE_TOKEN_PREFIX);
        let now = self.clock.now();
        let invite = self
            .teams
            .create_invite(NewInvite {
                team_id,
                email: email.clone(),
                role,
                token_hash: hash_secret(&token),
                invited_by: user.id,
                created_at: now,
                expires_at: now + self.invite_ttl,
            })
            .await?;
        let message = Message::Invite {
            to: email,
            team_name: team.name,
            inviter_name: user.display_name(),
            role: role.as_str().to_owned(),
            invite_url: format!("{}/invite/{token}", self.public_url),
            expires_at: invite.expires_at,
        };
        // A failed e-mail keeps the invite (stored above); the inviter learns it from
        // `email_sent` and re-invites, which mails a new link.
        let email_sent = match self.mailer.send(&message).await {
            Ok(()) => true,
            Err(e) => {
                tracing::error!(invite_id = invite.id, error = %e, "invite e-mail not sent");
                false
            }
        };
        Ok(CreatedInvite { invite, email_sent })
    }

    pub async fn invites(&self, user: &User, team_id: i64) -> Result<Vec<Invite>, TeamError> {
        self.authorize(user, team_id, TeamAction::ListInvites)
            .await?;
        Ok(self
            .teams
            .pending_invites(team_id, self.clock.now())
            .await?)
    }

    pub async fn revoke_invite(
        &self,
        user: &User,
        team_id: i64,
        invite_id: i64,
    ) -> Result<(), TeamError> {
        self.authorize(user, team_id, TeamAction::RevokeInvite)
            .await?;
        if self
            .teams
            .revoke_invite(team_id, invite_id, self.clock.now())
            .await?
        {
            Ok(())
        } else {
            Err(TeamError::NotFound("Invite"))
        }
    }

    /// The public view of an invite; reading never spends it.
    pub async fn invite_info(&self, token: &str) -> Result<InviteDetails, TeamError> {
        let details = self
            .teams
            .find_invite(&hash_secret(token.trim()))
            .await?
            .ok_or(TeamError::NotFound("Invite"))?;
        if !details.invite.is_pending_at(self.clock.now()) {
            return Err(TeamError::Gone(GONE.into()));
        }
        Ok(details)
    }

    pub async fn accept(
        &self,
        token: &str,
        first_name: Option<&str>,
        last_name: Option<&str>,
    ) -> Result<AcceptedInvite, TeamError> {
        let details = self.invite_info(token).await?;
        if !details.team_is_active {
            return Err(TeamError::Forbidden(INACTIVE.into()));
        }
        let now = self.clock.now();
        let new_user = match self.users.find_by_email(&details.invite.email).await? {
            Some(_) => None,
            None => {
                let first = first_name.and_then(clean_text);
                let last = last_name.and_then(clean_text);
                let mut problems = Vec::new();
                for (field, value) in [("first_name", &first), ("last_name", &last)] {
                    match value {
                        None => problems.push(FieldError::body(
                            &[LocPart::from(field)],
                            "missing",
                            "Field required for a new account",
                        )),
                        Some(v) if v.chars().count() > 100 => problems.push(FieldError::body(
                            &[LocPart::from(field)],
                            "too_long",
                            "String should have at most 100 characters",
                        )),
                        Some(_) => {}
                    }
                }
                if !problems.is_empty() {
                    return Err(TeamError::Invalid(problems));
                }
                Some(NewUser {
                    id: (),
                    user_id: self.tokens.public_id("usr_"),
                    email: details.invite.email.clone(),
                    first_name: first,
                    last_name: last,
                    is_admin: false,
                    created_at: now,
                    follow_up_digest: true,
                    utc_offset: None,
                })
            }
        };
        match self
            .teams
            .accept_invite(&hash_secret(token.trim()), new_user, now)
            .await?
        {
            AcceptOutcome::Accepted {
                user,
                team_id,
                team_name,
            } => {
                let session = self.identity.start_session(&user).await?;
                Ok(AcceptedInvite {
                    team_id,
                    team_name,
                    user,
                    session,
                })
            }
            AcceptOutcome::Gone => Err(TeamError::Gone(GONE.into())),
            AcceptOutcome::TeamInactive => Err(TeamError::Forbidden(INACTIVE.into())),
            AcceptOutcome::NamesRequired => Err(TeamError::Invalid(vec![
                FieldError::body(
                    &[LocPart::from("first_name")],
                    "missing",
                    "Field required for a new account",
                ),
                FieldError::body(
                    &[LocPart::from("last_name")],
                    "missing",
                    "Field required for a new account",
                ),
            ])),
        }
    }
}
