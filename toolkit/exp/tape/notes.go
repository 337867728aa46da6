package tape

// What the estimators' construction decides, written beside the claims it bears on
// (exp.Claim.ByConstruction): arguments, not measurements, so they never make a claim untestable —
// each such claim reads its data's verdict with the argument beside it.

// stochasticNote is the zero-mean argument for stochastic TAPE's estimators (the advantages
// tape.Train accepts: "dop", and "return", which adds the λ-return residual once per coalition): p
// moves the expected update only through the update's variance.
const stochasticNote = "p changes stochastic TAPE's update only through its variance: agent i's weight Σ_j A_ij·k_j·A_j " +
	"(tape.DOPAdvantage; offpg_learner.py) adds, for each j ≠ i, a term of zero mean given the state under the policy " +
	"(the paper's Theorem 2). That variance can still change where training goes — on LBF PPO's advantage normalisation " +
	"and clipping scale each step with it, and the shared-actor runs with the same estimator show p changing learning — " +
	"so the claim reads its data"

// detDirectionNote: deterministic TAPE here (tabular per-agent logits on a one-state game) can
// only rescale each agent's step through the monotonic mixer.
const detDirectionNote = "deterministic TAPE here is tabular on a one-state game: agent j's loss term u_j = " +
	"Σ_a π_j(a)·(α·log π_j(a) − Q_j(a)) depends on its own policy only, so through the monotonic mixer the topology " +
	"scales agent j's step by w_j = (1/N)·Σ_i A_ij·∂Mix/∂x_j ≥ 0 (tape.MixWeights) and never turns it: p acts as a " +
	"per-agent step size (with shared actors or several states, the authors' SMAC setting, it could also turn it)"

// detSGDNote: the det-… methods step the actor with plain SGD, not the authors' Adam.
const detSGDNote = "the det-… methods (PaperLab's first runs) step the actor with plain SGD, where a per-agent rescaling of the " +
	"step changes the outcome as a learning rate does (the det-p0-lr controls); the authors' code uses Adam (the " +
	"adam-det-… claims)"

// fromDOPExponentNote: for independent on-policy agents the distance from DOP is linear in p by
// algebra.
const fromDOPExponentNote = "for independent agents on on-policy batches the j ≠ i terms are uncorrelated with zero mean and " +
	"A_ij² = A_ij (Bernoulli), so E‖g(A) − g(I)‖² = p·Σ_{j≠i} E[(k_j·A_j)²·‖∇log π_i‖²]: linear in p, an exponent of 1 " +
	"by algebra — the measurement checks that algebra, it is not a finding against the ∝ p² a summary of Theorem 2 reports"

// additivePayoffNote: the shared-actor game's payoff is additive over agents, so coalition terms
// carry no information about an agent's own action.
const additivePayoffNote = "the shared-actor game pays R = Σ_i P[o_i][a_i] (+ noise), additive over agents: another " +
	"agent's advantage says nothing about agent i's action, so coalition terms can only add noise and an intermediate p " +
	"cannot help by design — a game where coordination pays super-additively is needed for p to help"
