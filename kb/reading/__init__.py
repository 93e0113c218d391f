"""One reader for rule sentences and questions (pt/en) → typed propositions."""

from kb.reading.proposition import Proposition, QuestionReading, Reading
from kb.reading.reader import Span, read_question, read_sentence

__all__ = ["Proposition", "QuestionReading", "Reading", "Span", "read_question", "read_sentence"]
