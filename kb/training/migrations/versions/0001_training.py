"""The training tables: trainees, sessions and their questions, answers, review states.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from kb.training.tables import UTCDateTime

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "trainees",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("name", sa.String(80), nullable=True),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.Column("expires_at", UTCDateTime(), nullable=False),
        sa.UniqueConstraint("token_hash", name="uq_trainee_token"),
    )
    op.create_table(
        "training_sessions",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("trainee_id", sa.String(32), sa.ForeignKey("trainees.id"), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("format", sa.String(64), nullable=True),
        sa.Column("topics", sa.Text(), nullable=False),
        sa.Column("n", sa.Integer(), nullable=False),
        sa.Column("build_id", sa.String(128), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.Column("deadline", UTCDateTime(), nullable=True),
        sa.Column("pass_mark", sa.Float(), nullable=True),
        sa.Column("closed_at", UTCDateTime(), nullable=True),
        sa.Column("timed_out", sa.Boolean(), nullable=False),
    )
    op.create_index("ix_training_sessions_trainee_id", "training_sessions", ["trainee_id"])
    op.create_table(
        "session_questions",
        sa.Column(
            "session_id",
            sa.String(32),
            sa.ForeignKey("training_sessions.id"),
            primary_key=True,
        ),
        sa.Column("position", sa.Integer(), primary_key=True),
        sa.Column("question_id", sa.String(300), nullable=False),
        sa.Column("fingerprint", sa.String(64), nullable=False),
        sa.UniqueConstraint("session_id", "question_id", name="uq_session_question"),
    )
    op.create_table(
        "answers",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("trainee_id", sa.String(32), sa.ForeignKey("trainees.id"), nullable=False),
        sa.Column(
            "session_id", sa.String(32), sa.ForeignKey("training_sessions.id"), nullable=True
        ),
        sa.Column("question_id", sa.String(300), nullable=False),
        sa.Column("build_id", sa.String(128), nullable=False),
        sa.Column("fingerprint", sa.String(64), nullable=False),
        sa.Column("format", sa.String(64), nullable=False),
        sa.Column("topics", sa.Text(), nullable=False),
        sa.Column("given", sa.String(64), nullable=False),
        sa.Column("correct", sa.Boolean(), nullable=False),
        sa.Column("time_taken_ms", sa.Integer(), nullable=False),
        sa.Column("answered_at", UTCDateTime(), nullable=False),
        sa.UniqueConstraint("session_id", "question_id", name="uq_answer_once"),
    )
    op.create_index("ix_answers_trainee_id", "answers", ["trainee_id"])
    op.create_table(
        "reviews",
        sa.Column("trainee_id", sa.String(32), sa.ForeignKey("trainees.id"), primary_key=True),
        sa.Column("question_id", sa.String(300), primary_key=True),
        sa.Column("fingerprint", sa.String(64), nullable=False),
        sa.Column("card", sa.Text(), nullable=False),
        sa.Column("due", UTCDateTime(), nullable=False),
        sa.Column("last_correct", sa.Boolean(), nullable=False),
    )
    op.create_index("ix_reviews_due", "reviews", ["due"])


def downgrade() -> None:
    op.drop_table("reviews")
    op.drop_table("answers")
    op.drop_table("session_questions")
    op.drop_table("training_sessions")
    op.drop_table("trainees")
