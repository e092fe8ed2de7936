import Dispatch
import Foundation
import Synchronization

/// Whisper on a thread of its own: the live path hands it an ended utterance and waits for the text until a
/// deadline, never longer. A decode past its deadline is abandoned (whisper.cpp polls the flag between steps), and
/// the live path falls back to pocketsphinx's text for that utterance.
public final class WhisperWorker: Sendable {
    /// One utterance to decode, and where its answer lands.
    fileprivate final class Job: Sendable {
        let samples: [Float]
        let prompt: String?
        /// nil: the worker's own search.
        let search: WhisperModel.Search?
        let scoringWithoutPrompt: (@Sendable (String) -> Bool)?
        let rewriting: WhisperModel.Rewriting?
        let work: Work
        let done = DispatchSemaphore(value: 0)
        let abandoned = Atomic<Bool>(false)
        let answer = Mutex<Result<WhisperModel.Transcript, HearingError>?>(nil)
        init(
            samples: [Float], prompt: String?, search: WhisperModel.Search?,
            scoringWithoutPrompt: (@Sendable (String) -> Bool)?, rewriting: WhisperModel.Rewriting? = nil, work: Work
        ) {
            self.samples = samples
            self.prompt = prompt
            self.search = search
            self.scoringWithoutPrompt = scoringWithoutPrompt
            self.rewriting = rewriting
            self.work = work
        }
    }

    /// What a job asks of the model.
    fileprivate enum Work: Sendable {
        /// The words, written in this language (`WhisperModel.transcribe`).
        case words(language: String)
        /// Only which language is spoken (`WhisperModel.spokenLanguage(of:)`).
        case languageOnly
    }

    /// The jobs waiting, shared by the caller and the thread (the thread must not keep the worker alive).
    private final class Queue: Sendable {
        let jobs = Mutex<(waiting: [Job], closed: Bool)>(([], false))
        let wake = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)

        /// The next job, or nil once closed.
        func next() -> Job? {
            while true {
                wake.wait()
                let (job, closed) = jobs.withLock { state in
                    (state.waiting.isEmpty ? nil : state.waiting.removeFirst(), state.closed)
                }
                if let job { return job }
                if closed { return nil }
            }
        }
    }

    /// Set only once the model has loaded: an init that throws before it never runs deinit (nothing to stop).
    private let queue: Queue

    /// Starts the thread, which loads the model before its first decode: the live path starts hearing at once (a
    /// second or more on a loaded machine), and an utterance that ends before the model is ready waits for it
    /// within its deadline like any other. A missing file is thrown here; one whisper.cpp cannot load fails every
    /// decode with `modelUnusable`.
    public init(modelPath: String, threads: Int = 2, search: WhisperModel.Search = .greedy) throws {
        try WhisperModel.requireFile(modelPath)
        let queue = Queue()
        self.queue = queue
        let thread = Thread { [queue] in
            let model = Result { try WhisperModel(path: modelPath) }
            while let job = queue.next() {
                let result: Result<WhisperModel.Transcript, HearingError>
                if case .failure(let error) = model {
                    result = .failure(error as? HearingError ?? HearingError(code: .modelUnusable, detail: "\(error)"))
                } else if job.abandoned.load(ordering: .relaxed) {
                    result = .failure(HearingError(code: .abandoned, detail: "the utterance waited past its deadline"))
                } else {
                    let shouldStop: @Sendable () -> Bool = { job.abandoned.load(ordering: .relaxed) }
                    do {
                        switch job.work {
                        case .words(let language):
                            result = .success(
                                try model.get().transcribe(
                                    job.samples, prompt: job.prompt, threads: threads,
                                    search: job.search ?? search, shouldStop: shouldStop,
                                    scoringWithoutPrompt: job.scoringWithoutPrompt, language: language,
                                    rewriting: job.rewriting))
                        case .languageOnly:
                            result = .success(
                                try model.get().spokenLanguage(
                                    of: job.samples, threads: threads, shouldStop: shouldStop))
                        }
                    } catch let error as HearingError {
                        result = .failure(error)
                    } catch {
                        result = .failure(HearingError(code: .decodeFailed, detail: "\(error)"))
                    }
                }
                job.answer.withLock { $0 = result }
                job.done.signal()
            }
            queue.finished.signal()
        }
        thread.name = "boxvoice-whisper"
        thread.start()
    }

    deinit {
        queue.jobs.withLock { $0.closed = true }
        queue.wake.signal()
        queue.finished.wait()
    }

    /// Decodes one utterance, waiting at most `deadline` seconds (wall clock) for the answer
    /// (`start(_:prompt:search:scoringWithoutPrompt:language:rewriting:)`).
    public func transcribe(
        _ samples: [Float], prompt: String?, deadline: Double, search: WhisperModel.Search? = nil,
        scoringWithoutPrompt: (@Sendable (String) -> Bool)? = nil, language: String = "en",
        rewriting: WhisperModel.Rewriting? = nil
    ) -> Result<WhisperModel.Transcript, HearingError> {
        start(
            samples, prompt: prompt, search: search, scoringWithoutPrompt: scoringWithoutPrompt, language: language,
            rewriting: rewriting
        ).answer(deadline: deadline)
    }

    /// How likely `samples` are English and which language they likeliest are (`WhisperModel.spokenLanguage(of:)`),
    /// waiting at most `deadline` seconds.
    public func spokenLanguage(of samples: [Float], deadline: Double) -> Result<WhisperModel.Transcript, HearingError> {
        let job = Job(samples: samples, prompt: nil, search: nil, scoringWithoutPrompt: nil, work: .languageOnly)
        enqueue(job)
        return Self.answer(of: job, deadline: deadline)
    }

    /// A decode started before its answer is needed
    /// (`start(_:prompt:search:scoringWithoutPrompt:language:rewriting:)`): waited for with `answer(deadline:)`, or
    /// dropped with `abandon()`.
    public struct Started: Sendable {
        fileprivate let job: Job

        /// The answer, waiting at most `deadline` seconds more; past it the decode is abandoned.
        public func answer(deadline: Double) -> Result<WhisperModel.Transcript, HearingError> {
            WhisperWorker.answer(of: job, deadline: deadline)
        }

        /// Stops the decode (or keeps it from starting): its audio turned out not to be the utterance's.
        public func abandon() { job.abandoned.store(true, ordering: .relaxed) }

        /// Whether the answer is in, without waiting: the live path hears on until it is.
        public var isAnswered: Bool { job.answer.withLock { $0 != nil } }
    }

    /// Starts decoding `samples` now and returns at once: the live path starts an utterance's decode while it waits
    /// to be sure the utterance has ended.
    /// - Parameters:
    ///   - search: this decode's search (nil: the worker's).
    ///   - scoringWithoutPrompt: which decoded texts to weigh again without the prompt (`WhisperModel.transcribe`).
    ///   - language: the language Whisper writes (`WhisperModel.transcribe`).
    ///   - rewriting: endings weighed against the decoded words' (`WhisperModel.Rewriting`).
    public func start(
        _ samples: [Float], prompt: String?, search: WhisperModel.Search? = nil,
        scoringWithoutPrompt: (@Sendable (String) -> Bool)? = nil, language: String = "en",
        rewriting: WhisperModel.Rewriting? = nil
    ) -> Started {
        let job = Job(
            samples: samples, prompt: prompt, search: search, scoringWithoutPrompt: scoringWithoutPrompt,
            rewriting: rewriting, work: .words(language: language))
        enqueue(job)
        return Started(job: job)
    }

    private func enqueue(_ job: Job) {
        queue.jobs.withLock { $0.waiting.append(job) }
        queue.wake.signal()
    }

    private static func answer(of job: Job, deadline: Double) -> Result<WhisperModel.Transcript, HearingError> {
        if job.done.wait(timeout: .now() + max(0, deadline)) == .timedOut {
            job.abandoned.store(true, ordering: .relaxed)
            return .failure(HearingError(code: .abandoned, detail: "Whisper did not answer within \(deadline) s"))
        }
        job.done.signal()  // answered: a later wait for the same job returns at once
        return job.answer.withLock { $0 } ?? .failure(HearingError(code: .decodeFailed, detail: "no answer"))
    }
}
