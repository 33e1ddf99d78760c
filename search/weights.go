package search

// The answerer's weights and thresholds, by stage. Scores and shares are fractions of the
// question's weight (its terms' rarities summed) unless said otherwise; the thresholds are
// calibrated on the tuning sets of testdata/qa (TestCalibDump, built with -tags calib,
// writes the features they are set from; HISTORY.md there records how).

// Retrieval (retrieve.go): the passages whose units are scored.
const (
	rerankDepth      = 16  // passages retrieved for reranking, at least
	synonymBoost     = 0.5 // weight of a synonym's match in retrieval against the word's own
	snippetLen       = 320 // characters of a passage's snippet, about
	snippetSlack     = 100 // characters a snippet may run over snippetLen before it is cut
	maxPartsPassages = 3   // passages the words of snake_case and CamelCase names add
	maxBodyPassages  = 3   // passages matching the question by their text alone add
	rareTerms        = 2   // the question's heaviest words whose sections are added
	maxRareSections  = 4   // a word in more sections than this is not rare enough to add them
	rarePrior        = 0.5 // an added section's retrieval score, relative to the best passage's
	coveringDepth    = 3   // sections withCoveringSections adds
)

// Question (question.go): the weight of each of its terms.
const (
	contextWeight = 0.75 // a word only in a sentence of context, against one in the asking sentence
	unknownWeight = 0.5  // a word the docs never use: it matches nothing, so it weighs less on every unit
	partWeight    = 0.5  // a part of a snake_case name, against a whole word
	synonymShare  = 0.8  // of a term's weight, what a synonym of it holds
	maxNamedPaths = 4    // API paths, and flags, of a question matched whole
)

// Scoring (score.go): a unit's score for a question.
const (
	ctxWeight              = 0.5   // a question word in the heading path only, against one in the unit
	headWeight             = 0.25  // the share of the question in the unit's heading path
	titleWeight            = 0.4   // the share of the question in the unit's page title: the page's topic
	retrievalWeight        = 0.15  // the passage's retrieval score, relative to the best passage's
	pageWeight             = 0.2   // the page's share of the retrieved passages' score, relative to the best page's
	pairBonus              = 0.06  // each pair of the question's neighbouring terms the unit has side by side
	maxPairBonus           = 0.15  // at most, for such pairs
	rawPairBonus           = 0.04  // each pair of the question's neighbouring words, as written, in the unit
	maxRawPairBonus        = 0.1   // at most, for such pairs
	pathBonus              = 0.15  // the unit or its heading names the path or flag the question writes
	resourceBonus          = 0.15  // an amount of the API resource the question names, for "how many"
	minListCodes           = 3     // code spans that make a unit a list of names
	listBonus              = 0.08  // a list of names, for "which values"
	choicesBonus           = 0.15  // the values as alternatives ("`a`, `b` or `c`"), for "which values"
	defaultBonus           = 0.1   // what something defaults to, for "when I leave it out"
	bodyBonus              = 0.1   // a JSON body, for "what does X return"
	quantityBonus          = 0.12  // an amount with its unit, for a question asking for an amount
	digitBonus             = 0.04  // a number without a unit, for such a question
	noAmountPenalty        = 0.1   // no number at all, for such a question
	codeBonus              = 0.05  // a code span, for "which header" and the like
	imperativeBonus        = 0.2   // an instruction, for "how do I"
	referencePenalty       = 0.1   // a unit of an object's or example's section, for "how do I"
	shortSentenceWords     = 5     // a sentence of fewer words says too little alone
	shortSentencePenalty   = 0.1   // for such a sentence
	longUnitWords          = 40    // a unit of more words matches many words by its length alone
	longUnitPenaltyPerWord = 0.003 // for each word beyond longUnitWords
	maxLongUnitPenalty     = 0.2   // at most, for a long unit
	leadInPenalty          = 0.05  // a sentence ending in ":" introduces what follows
	kindBonus              = 0.08  // once answerable: a status for "which error", a format for "what format"
	similarShare           = 0.6   // two units sharing more of their terms than this say the same
)

// Declining (decline.go): when the best unit answers the question.
const (
	minCoverage = 0.45 // the best unit holds this much of the question, its heading path counting ctxWeight
	minOwn      = 0.2  // and this much by its own words
	// minSectionCoverage: or its section's heading path and units together hold this much,
	// and the unit minOwnInSection by its own words.
	minSectionCoverage = 0.7
	minOwnInSection    = 0.15
	// minCoverageUnderHeading: or the unit holds this much under a heading path holding
	// minHeadingCoverage and scores minHeadingScore.
	minCoverageUnderHeading = 0.3
	minHeadingCoverage      = 0.35
	minHeadingScore         = 0.85
	minWeakScore            = 0.82 // below this score the best unit answers only through its section, concepts or name
	minStrongScore          = 0.85 // a unit scoring this, holding minOwn and minCoverageUnderHeading, answers
	// minConcepts: or the question names this many terms of the docs' headings, the best
	// unit holds minConceptsHeld of them (by its own words or its heading's) and scores
	// minConceptsScore.
	minConcepts      = 3
	minConceptsHeld  = 2
	minConceptsScore = 0.55
	// minThingScore: a question naming a thing by a word the docs never use ("last month's
	// invoice") answers only from a unit scoring this, holding more than its heading.
	minThingScore = 0.9
	// maxUnknownShare: a question with this share of its weight in words the docs never use
	// answers only with two docs words or more, from a unit scoring minScoreMostlyUnknown.
	maxUnknownShare       = 0.5
	minScoreMostlyUnknown = minStrongScore
)

// Composing (compose.go): which units join the best one in the answer. A share is of the
// best unit's score, or of what it holds by its own words (an "own" share).
const (
	maxAnswerUnit = 4    // units quoted, the best one aside, before extra rows
	maxExtraRows  = 2    // matching table rows or list items added beyond maxAnswerUnit
	maxAnswerLen  = 1200 // characters of the quoted units, most joiners
	rowOwnShare   = 0.8  // a row or item holding this own share ...
	rowShare      = 0.75 // ... and scoring this share joins as a matching row
	sentenceShare = 0.9  // a sentence of another section scoring this share may join
	nearTie       = 0.9  // a unit of another section this near joins first without adding a word
	siblingShare  = 0.55 // a unit of the best section this near joins
	// siblingOwnShare: such a unit may hold less than minOwn by its own words if it holds
	// this own share: a long question spreads its weight over several rows.
	siblingOwnShare  = 0.6
	runnerUpShare    = 0.7 // the best unit of another section this near joins as a runner-up
	maxRunnerUps     = 2   // sections besides the best one whose best unit joins so
	maxRunnerUpLooks = 3   // the sections, as ranked by their units, a runner-up is looked for in
	// A unit holding a question word of at least minCoverWeight of the question's weight that
	// the answer lacks joins (at most maxCoverUnits of them): from a section the answer
	// quotes at any score, from a page it quotes at coverPageShare, from another page at
	// coverOtherPageShare.
	minCoverWeight      = 0.1
	maxCoverUnits       = 1
	coverPageShare      = 0.6
	coverOtherPageShare = 0.85
	completionShare     = 0.6  // a unit of another section holding the kind of fact asked that the answer lacks joins from this near
	shortSection        = 800  // characters: a section this short is quoted whole
	fillLen             = 1000 // characters: one more matching row or item fills the answer up to this
	pageShare           = 0.6  // a unit of another section of the best unit's page this near joins last ...
	pageFillLen         = 1300 // ... within this many characters
)
