// Which of these fact ids exist already (and in which scope): the full-pipeline import skips
// rows already written, which makes a re-run or a resumed run add nothing.
UNWIND $ids AS id
MATCH (f:Fact {id: id})
RETURN f.id AS id, f.scope AS scope
