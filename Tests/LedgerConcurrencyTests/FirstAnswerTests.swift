import LedgerConcurrency
import Testing

/// The first result wins; with a deadline, the deadline's answer comes only when nothing came before it.
@Suite(.timeLimit(.minutes(1))) struct FirstAnswerTests {
    @Test func theFirstAnswerWinsAndLaterOnesAreIgnored() async throws {
        let answer = FirstAnswer<Int>()
        answer.give(.success(1))
        answer.give(.success(2))
        #expect(try await answer.value.get() == 1)
        #expect(try await answer.value.get() == 1)
    }

    @Test func anAnswerBeforeTheDeadlineEndsTheWaitAndItsTimer() async throws {
        // An hour-long deadline: if its timer outlived the answer, this would not return before the time limit.
        let answer = FirstAnswer<Int>()
        answer.give(.success(7))
        #expect(try await answer.value(timeout: .seconds(3600)) { .success(0) }.get() == 7)
    }

    @Test func theDeadlineAnswersWhenNothingElseDoes() async throws {
        let answer = FirstAnswer<Int>()
        #expect(try await answer.value(timeout: .milliseconds(1)) { .success(-1) }.get() == -1)
        #expect(!answer.give(.success(5)), "a late answer is ignored")
    }
}
