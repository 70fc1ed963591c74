-- Workflows (F-14), step 2 of 2: marks satisfied the edges satisfy_dependencies.sql locked, read
-- again through the parents' index. Never through the children's edges: those of a child's other
-- parents are locked by their own completions, and a multi-table UPDATE would wait for each of
-- them while holding its own (seen: two parents of one child deadlocking on each other's edge).
-- Index: job_dependencies_parent_idx (parent_id), driven by the id list.
-- Parameters: parent ids read by step 1 (JSON array).
UPDATE JSON_TABLE(?, '$[*]' COLUMNS (id BIGINT PATH '$')) AS p
STRAIGHT_JOIN {{job_dependencies}} AS d FORCE INDEX ({{prefix}}job_dependencies_parent_idx) ON d.parent_id = p.id
SET d.satisfied = TRUE
WHERE NOT d.satisfied
