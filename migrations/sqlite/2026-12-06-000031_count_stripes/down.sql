DROP TRIGGER lead_daily_counts_insert;
DROP TRIGGER lead_daily_counts_update;
DROP TRIGGER lead_daily_counts_delete;
CREATE TABLE lead_daily_counts_folded (
    team_scope BIGINT NOT NULL,
    day TEXT NOT NULL,
    source TEXT NOT NULL,
    enrichment_status TEXT NOT NULL,
    status TEXT NOT NULL,
    n BIGINT NOT NULL,
    PRIMARY KEY (team_scope, day, source, enrichment_status, status)
);
INSERT INTO lead_daily_counts_folded (team_scope, day, source, enrichment_status, status, n)
SELECT team_scope, day, source, enrichment_status, status, SUM(n) FROM lead_daily_counts GROUP BY 1, 2, 3, 4, 5;
DROP TABLE lead_daily_counts;
ALTER TABLE lead_daily_counts_folded RENAME TO lead_daily_counts;

CREATE TRIGGER lead_daily_counts_insert AFTER INSERT ON leads
WHEN NEW.archived_at IS NULL AND NEW.merged_into_id IS NULL
BEGIN
    INSERT INTO lead_daily_counts (team_scope, day, source, enrichment_status, status, n)
    VALUES (COALESCE(NEW.team_id, 0), date(NEW.created_at), COALESCE(NEW.source, ''),
            NEW.enrichment_status, NEW.status, 1)
    ON CONFLICT (team_scope, day, source, enrichment_status, status) DO UPDATE SET n = n + 1;
END;

-- Only an update that moves a lead to another row of counts, or in or out of the live ones,
-- does anything (most updates of a lead change neither).
CREATE TRIGGER lead_daily_counts_update
AFTER UPDATE OF team_id, created_at, source, enrichment_status, status, archived_at, merged_into_id
ON leads
WHEN OLD.team_id IS NOT NEW.team_id
  OR date(OLD.created_at) IS NOT date(NEW.created_at)
  OR OLD.source IS NOT NEW.source
  OR OLD.enrichment_status IS NOT NEW.enrichment_status
  OR OLD.status IS NOT NEW.status
  OR (OLD.archived_at IS NULL) <> (NEW.archived_at IS NULL)
  OR (OLD.merged_into_id IS NULL) <> (NEW.merged_into_id IS NULL)
BEGIN
    UPDATE lead_daily_counts SET n = n - 1
    WHERE OLD.archived_at IS NULL AND OLD.merged_into_id IS NULL
      AND team_scope = COALESCE(OLD.team_id, 0) AND day = date(OLD.created_at)
      AND source = COALESCE(OLD.source, '') AND enrichment_status = OLD.enrichment_status
      AND status = OLD.status;
    -- `WHERE` before `ON CONFLICT`: SQLite's parser needs it after an INSERT ... SELECT.
    INSERT INTO lead_daily_counts (team_scope, day, source, enrichment_status, status, n)
    SELECT COALESCE(NEW.team_id, 0), date(NEW.created_at), COALESCE(NEW.source, ''),
           NEW.enrichment_status, NEW.status, 1
    WHERE NEW.archived_at IS NULL AND NEW.merged_into_id IS NULL
    ON CONFLICT (team_scope, day, source, enrichment_status, status) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER lead_daily_counts_delete AFTER DELETE ON leads
WHEN OLD.archived_at IS NULL AND OLD.merged_into_id IS NULL
BEGIN
    UPDATE lead_daily_counts SET n = n - 1
    WHERE team_scope = COALESCE(OLD.team_id, 0) AND day = date(OLD.created_at)
      AND source = COALESCE(OLD.source, '') AND enrichment_status = OLD.enrichment_status
      AND status = OLD.status;
END;
