-- Workflows (F-14), in the completion transaction of the given parents, step 1 of 2: locks and
-- reads each parent's edges not yet satisfied, one row per edge (parent, child). Step 2
-- (satisfy_dependencies_apply.sql) marks exactly these satisfied: a completion recorded twice
-- finds them satisfied and decrements nobody twice. (The caller runs this only for parents whose
-- own running -> completed update, or failure under the CONTINUE policy, happened in this
-- transaction, which holds that parent's row lock.)
-- Index: job_dependencies_parent_idx (parent_id), driven by the id list.
-- Parameters: parent ids (JSON array).
SELECT d.parent_id, d.child_id
FROM JSON_TABLE(?, '$[*]' COLUMNS (id BIGINT PATH '$')) AS p
STRAIGHT_JOIN {{job_dependencies}} AS d FORCE INDEX ({{prefix}}job_dependencies_parent_idx) ON d.parent_id = p.id
WHERE NOT d.satisfied
FOR UPDATE
