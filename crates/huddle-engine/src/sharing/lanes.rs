//! Multi-threaded runs over one network endpoint. The batch is split into
//! lanes, one per worker thread, each a complete instance of the protocol on
//! its share of the instances. All lanes of a party perform the same sequence
//! of channel operations (same program, same role), only with different
//! sizes, so a coordinator (the thread that owns the `Network`) takes the k-th
//! operation of every lane together: it concatenates their sends into one
//! message per link (lane-major) and splits one received message among them.
//! Rounds and bytes per link are therefore those of a single-threaded run
//! (key setup excepted: every lane agrees its own keys).

use super::Transport;
use huddle_net::{NetError, Network, PartyId, Phase};
use std::sync::mpsc::{channel, Receiver, Sender};

enum Op {
    Send(PartyId, Vec<u8>),
    Recv(PartyId, usize),
    Phase(Phase),
    Done,
}

/// A lane's view of the network: operations go to the coordinator.
pub struct LaneTransport {
    me: PartyId,
    parties: usize,
    phase: Phase,
    ops: Sender<Op>,
    replies: Receiver<Result<Vec<u8>, NetError>>,
}

impl LaneTransport {
    fn stopped(&self) -> NetError {
        NetError::Setup("the coordinating thread stopped".into())
    }

    /// Tells the coordinator this lane has finished (successfully or not).
    pub fn done(&self) {
        let _ = self.ops.send(Op::Done);
    }
}

impl Transport for LaneTransport {
    fn party(&self) -> PartyId {
        self.me
    }
    fn parties(&self) -> usize {
        self.parties
    }
    fn send(&mut self, to: PartyId, data: Vec<u8>) -> Result<(), NetError> {
        self.ops
            .send(Op::Send(to, data))
            .map_err(|_| self.stopped())
    }
    fn recv(&mut self, from: PartyId, len: usize) -> Result<Vec<u8>, NetError> {
        self.ops
            .send(Op::Recv(from, len))
            .map_err(|_| self.stopped())?;
        self.replies.recv().map_err(|_| self.stopped())?
    }
    fn set_phase(&mut self, phase: Phase) {
        self.phase = phase;
        let _ = self.ops.send(Op::Phase(phase));
    }
    fn phase(&self) -> Phase {
        self.phase
    }
}

/// The coordinator's ends of the lanes' channels.
pub struct Coordinator {
    ops: Vec<Receiver<Op>>,
    replies: Vec<Sender<Result<Vec<u8>, NetError>>>,
}

/// A coordinator and `lanes` lane transports for party `me` of `parties`.
pub fn lanes(me: PartyId, parties: usize, lanes: usize) -> (Coordinator, Vec<LaneTransport>) {
    let mut c = Coordinator {
        ops: Vec::new(),
        replies: Vec::new(),
    };
    let mut ts = Vec::new();
    for _ in 0..lanes {
        let (op_tx, op_rx) = channel();
        let (rep_tx, rep_rx) = channel();
        c.ops.push(op_rx);
        c.replies.push(rep_tx);
        ts.push(LaneTransport {
            me,
            parties,
            phase: Phase::Setup,
            ops: op_tx,
            replies: rep_rx,
        });
    }
    (c, ts)
}

impl Coordinator {
    /// Serves the lanes until all are done. Returns the first network error;
    /// if lanes disagree (one failed), stops serving, which ends the others.
    pub fn serve(self, net: &mut Network) -> Result<(), NetError> {
        loop {
            let ops: Vec<Op> = self
                .ops
                .iter()
                .map(|rx| rx.recv().unwrap_or(Op::Done))
                .collect();
            match &ops[0] {
                Op::Done => return Ok(()),
                Op::Send(to, _) => {
                    let to = *to;
                    let mut all = Vec::new();
                    for op in ops {
                        match op {
                            Op::Send(t, data) if t == to => all.extend_from_slice(&data),
                            _ => return Ok(()), // a lane stopped early: it reports why
                        }
                    }
                    Transport::send(net, to, all)?;
                }
                Op::Recv(from, _) => {
                    let from = *from;
                    let mut lens = Vec::with_capacity(ops.len());
                    for op in &ops {
                        match op {
                            Op::Recv(f, len) if *f == from => lens.push(*len),
                            _ => return Ok(()),
                        }
                    }
                    match Transport::recv(net, from, lens.iter().sum()) {
                        Ok(data) => {
                            let mut at = 0;
                            for (len, reply) in lens.iter().zip(&self.replies) {
                                let _ = reply.send(Ok(data[at..at + len].to_vec()));
                                at += len;
                            }
                        }
                        Err(e) => {
                            for reply in &self.replies {
                                let _ = reply.send(Err(e.clone()));
                            }
                            return Err(e);
                        }
                    }
                }
                Op::Phase(p) => {
                    let p = *p;
                    if ops.iter().any(|op| !matches!(op, Op::Phase(q) if *q == p)) {
                        return Ok(());
                    }
                    net.set_phase(p);
                }
            }
        }
    }
}
